//! Zeroed arrays in anonymous memory that ask for transparent huge pages.
//!
//! The solver's working cells, the tables a solve or a verify loads, and
//! the search's transposition table are read at random over gigabytes:
//! with 4 KiB pages nearly every access misses the TLB as well as the
//! cache. Kernels with transparent huge pages in `madvise` mode (the
//! common default) give 2 MiB pages only to memory that asks for them.
//!
//! The memory of a dropped array is kept for the next one (up to
//! [`spare_limit`]) instead of being given back to the kernel. A solve or
//! a verify drops and allocates gigabytes table after table, and fresh
//! pages cost more than their zeroing: in a virtual machine whose
//! balloon reports free pages to the host (free page reporting), memory
//! given back for two seconds or more is taken from the guest, and its
//! next touch faults in the host. Measured on the 2-core VM of
//! docs/long-runs.md: first touch of a fresh GiB 0.07 s right after a
//! free, 0.5-2.3 s two seconds or more after; writing over kept memory
//! 0.03 s.

use memmap2::MmapMut;
use std::mem::ManuallyDrop;
use std::sync::Mutex;

/// Plain integers: all-zero bytes are a valid value, and any alignment a
/// page gives is enough.
pub trait Plain: Copy + sealed::Sealed {}
impl Plain for u16 {}
impl Plain for u64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u16 {}
    impl Sealed for u64 {}
}

/// `len` values of `T`, zero at first, in huge-page memory where the
/// kernel grants it.
pub struct Huge<T: Plain> {
    /// Given to the spares when the array drops.
    map: ManuallyDrop<MmapMut>,
    len: usize,
    /// Whether the map asked for huge pages; only those are kept as
    /// spares.
    huge_pages: bool,
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
        let bytes = bytes_of::<T>(len)?;
        if huge_pages {
            if let Some((mut map, used)) = take_spare(bytes) {
                // The pages beyond `used` are fresh, so zero already.
                map[..used].fill(0);
                return Ok(Huge::of_map(map, len, true));
            }
        }
        Ok(Huge::of_map(fresh_map(bytes, huge_pages)?, len, huge_pages))
    }

    /// `len` values on huge pages, holding whatever the memory held
    /// before (any bytes are a valid value): for a caller that writes
    /// every value before it reads one, such as a table being loaded.
    pub fn overwritten(len: usize) -> std::io::Result<Huge<T>> {
        let bytes = bytes_of::<T>(len)?;
        let map = match take_spare(bytes) {
            Some((map, _)) => map,
            None => fresh_map(bytes, true)?,
        };
        Ok(Huge::of_map(map, len, true))
    }

    fn of_map(map: MmapMut, len: usize, huge_pages: bool) -> Huge<T> {
        Huge { map: ManuallyDrop::new(map), len, huge_pages, _cells: std::marker::PhantomData }
    }
}

impl<T: Plain> Drop for Huge<T> {
    fn drop(&mut self) {
        // Safety: the map is taken once, here, and not used after.
        let map = unsafe { ManuallyDrop::take(&mut self.map) };
        if self.huge_pages {
            give_spare(map);
        }
    }
}

/// The bytes of `len` values of `T`.
fn bytes_of<T>(len: usize) -> std::io::Result<usize> {
    len.checked_mul(std::mem::size_of::<T>()).ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::OutOfMemory,
            format!("{len} values do not fit in memory"),
        )
    })
}

/// A new zero-filled anonymous map of `bytes`.
fn fresh_map(bytes: usize, huge_pages: bool) -> std::io::Result<MmapMut> {
    let map = MmapMut::map_anon(bytes.max(1))?;
    // Only a hint: without huge pages the values are as correct, and
    // reading them is slower.
    #[cfg(target_os = "linux")]
    if huge_pages {
        let _ = map.advise(memmap2::Advice::HugePage);
    }
    Ok(map)
}

/// Maps of dropped arrays, newest last, kept for the next arrays.
static SPARES: Mutex<Vec<MmapMut>> = Mutex::new(Vec::new());

/// Spare maps smaller than this are given back at once: the kernel
/// keeps them itself (free page reporting works on 2 MiB blocks).
const SMALLEST_SPARE: usize = 2 << 20;

/// The most bytes kept in spare maps: an eighth of the machine's memory,
/// at most 4 GiB. The spares are memory that was just in use, and a new
/// array takes them before any fresh memory, so they add little to a
/// run's peak.
pub fn spare_limit() -> usize {
    const MAX: u64 = 4 << 30;
    physical_memory().map_or(1 << 30, |bytes| (bytes / 8).min(MAX)) as usize
}

/// Keeps `map` as a spare, dropping the oldest spares beyond the limit.
fn give_spare(map: MmapMut) {
    if !cfg!(target_os = "linux") || map.len() < SMALLEST_SPARE {
        return;
    }
    let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
    spares.push(map);
    let limit = spare_limit();
    while spares.iter().map(|m| m.len()).sum::<usize>() > limit {
        spares.remove(0);
    }
}

/// A spare map resized to `bytes`, with how many of its bytes were in
/// use before (the rest is fresh, zero): the smallest spare of at least
/// `bytes`, else the largest. `None` when there is none, or the resize
/// fails.
fn take_spare(bytes: usize) -> Option<(MmapMut, usize)> {
    if bytes < SMALLEST_SPARE {
        return None;
    }
    let mut map = {
        let mut spares = SPARES.lock().unwrap_or_else(|e| e.into_inner());
        let fits = |m: &&MmapMut| m.len() >= bytes;
        let at = match spares.iter().filter(fits).map(|m| m.len()).min() {
            Some(len) => spares.iter().position(|m| m.len() == len),
            None => (0..spares.len()).max_by_key(|&i| spares[i].len()),
        }?;
        spares.swap_remove(at)
    };
    let used = map.len().min(bytes);
    resize(&mut map, bytes).ok()?;
    Some((map, used))
}

/// Resizes an anonymous map in place or elsewhere: a shrink gives the
/// tail back to the kernel, a growth adds fresh zero pages.
#[cfg(target_os = "linux")]
fn resize(map: &mut MmapMut, bytes: usize) -> std::io::Result<()> {
    if map.len() == bytes {
        return Ok(());
    }
    // Safety: the map is anonymous and private, owned here, and no
    // reference into it outlives this call (it may move).
    unsafe { map.remap(bytes, memmap2::RemapOptions::new().may_move(true)) }
}

#[cfg(not(target_os = "linux"))]
fn resize(_: &mut MmapMut, _: usize) -> std::io::Result<()> {
    Err(std::io::Error::other("no spares kept here"))
}

/// The machine's memory in bytes, where the system says.
pub(crate) fn physical_memory() -> Option<u64> {
    // Safety: sysconf only reads system constants.
    let (pages, page) =
        unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    (pages > 0 && page > 0).then(|| pages as u64 * page as u64)
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

    #[test]
    fn memory_kept_from_a_dropped_array_comes_back_zeroed_at_any_size() {
        // Past the smallest spare kept, and written all over.
        let n = SMALLEST_SPARE;
        for len in [n, n / 2, 3 * n, n + 1] {
            let mut cells: HugeCells = Huge::zeroed(len).unwrap();
            assert_eq!(cells.len(), len);
            assert!(cells.iter().all(|&c| c == 0), "{len}");
            cells.fill(0xabcd);
        }
        let mut cells: HugeCells = Huge::overwritten(2 * n).unwrap();
        assert_eq!(cells.len(), 2 * n);
        cells.fill(1);
        assert!(cells.iter().all(|&c| c == 1));
    }
}
