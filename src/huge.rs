//! Zeroed arrays in anonymous memory that ask for transparent huge pages.
//!
//! The solver's working cells, the tables a solve or a verify loads, and
//! the search's transposition table are read at random over gigabytes:
//! with 4 KiB pages nearly every access misses the TLB as well as the
//! cache. Kernels with transparent huge pages in `madvise` mode (the
//! common default) give 2 MiB pages only to memory that asks for them.

use memmap2::MmapMut;

/// Plain integers: all-zero bytes are a valid value, and any alignment a
/// page gives is enough.
pub trait Plain: Copy + sealed::Sealed {}
impl Plain for u8 {}
impl Plain for u16 {}
impl Plain for u64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u64 {}
}

/// `len` values of `T`, zero at first, in huge-page memory where the
/// kernel grants it.
pub struct Huge<T: Plain> {
    map: MmapMut,
    len: usize,
    _cells: std::marker::PhantomData<T>,
}

/// The 16-bit cells of a table or a sector being solved.
pub type HugeCells = Huge<u16>;

impl<T: Plain> Huge<T> {
    /// `len` zero values. The pages are zeroed lazily by the kernel, so
    /// memory that is never touched is never given.
    pub fn zeroed(len: usize) -> std::io::Result<Huge<T>> {
        Huge::zeroed_on(len, true)
    }

    /// `len` zero values, on huge pages only if `huge_pages`: a huge page
    /// is zeroed whole at its first touch (and may wait for the kernel to
    /// compact memory), which costs more than it saves where only a few
    /// scattered values are ever used.
    pub fn zeroed_on(len: usize, huge_pages: bool) -> std::io::Result<Huge<T>> {
        let bytes = len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("{len} values do not fit in memory"),
            )
        })?;
        let map = MmapMut::map_anon(bytes.max(1))?;
        // Only a hint: without huge pages the values are as correct, and
        // reading them is slower.
        #[cfg(target_os = "linux")]
        if huge_pages {
            let _ = map.advise(memmap2::Advice::HugePage);
        }
        Ok(Huge { map, len, _cells: std::marker::PhantomData })
    }

    /// The first value's address, taken from the map itself rather than
    /// through a shared borrow of the values: for views that write
    /// through atomics (the bytes are then never read as plain values
    /// while shared).
    pub fn as_ptr(&self) -> *const T {
        self.map.as_ptr() as *const T
    }
}

impl<T: Plain> std::ops::Deref for Huge<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // Safety: an anonymous map is page-aligned (enough for `T`), holds
        // at least `len` values' bytes, is zero-filled (a valid `T`, by
        // `Plain`) and private to this value, which the borrow keeps alive.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr() as *const T, self.len) }
    }
}

impl<T: Plain> std::ops::DerefMut for Huge<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // Safety: as in `deref`, borrowed exclusively.
        unsafe { std::slice::from_raw_parts_mut(self.map.as_mut_ptr() as *mut T, self.len) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_zeroed_and_keeps_what_is_written() {
        let mut wide: Huge<u64> = Huge::zeroed(1 << 20).unwrap();
        assert!(wide.iter().all(|&x| x == 0));
        wide[12345] = u64::MAX;
        assert_eq!(wide[12345], u64::MAX);
        assert_eq!(wide.len(), 1 << 20);
        let empty: HugeCells = Huge::zeroed(0).unwrap();
        assert!(empty.is_empty());
        assert!(Huge::<u64>::zeroed(usize::MAX / 4).is_err(), "the byte count overflows");
    }
}
