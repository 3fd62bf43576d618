//! An app set (`morris export --app`): the outcome tier of every sector
//! (win/draw/loss tables and derived stubs), the progress tier of every
//! cyclic pair's sectors (`<variant>-<sector>.prg`, [`ProgressTable`]),
//! and a manifest, `<variant>-app.manifest`, that names the rules and
//! every file with its size and checksum.
//!
//! The manifest is a text file of lines, each a key and its value
//! separated by one space, read back exactly:
//!
//! ```text
//! morris app set 1
//! variant nine
//! rules <the rules key of every table>
//! description nine (flying at 3 stones)
//! file nine-3-3.wdl 2391 9c0e21f7
//! ...
//! end 4d3a11c0
//! ```
//!
//! `file` lines give a file's name, bytes and CRC-32 (hexadecimal), in
//! name order; `end` the CRC-32 of every byte before it. A database
//! directory with a manifest of its variant is an app set: it is checked
//! against the variant asked when first read ([`Database::app_manifest`]),
//! and a player may play from outcomes there, taking progress depths
//! ([`Database::progress_depth`]) where play can go round in circles.

use super::*;
use crate::solve::is_cyclic;
use crate::table::ProgressTable;
use std::fmt::Write as _;
use std::io::Read;

/// The manifest's first line.
const FIRST_LINE: &str = "morris app set 1";

/// An app set's manifest, as read or to be written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The variant's name.
    pub variant: String,
    /// The rules key every table of the set was solved under.
    pub rules: String,
    /// The variant in words.
    pub description: String,
    /// Every file of the set, by name.
    pub files: Vec<ManifestFile>,
}

/// One file of an app set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestFile {
    /// Its name in the directory.
    pub name: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The CRC-32 of its bytes.
    pub crc32: u32,
}

impl Manifest {
    /// The manifest as its file holds it.
    pub fn to_text(&self) -> String {
        let mut text = format!(
            "{FIRST_LINE}\nvariant {}\nrules {}\ndescription {}\n",
            self.variant, self.rules, self.description
        );
        for f in &self.files {
            writeln!(text, "file {} {} {:08x}", f.name, f.bytes, f.crc32).expect("a string");
        }
        let crc = crc32fast::hash(text.as_bytes());
        writeln!(text, "end {crc:08x}").expect("a string");
        text
    }

    /// Reads a manifest's text, refusing anything but what
    /// [`Manifest::to_text`] writes, whole and unchanged; the error says
    /// what is wrong.
    pub fn parse(text: &str) -> Result<Manifest, String> {
        let body_end = text.rfind("end ").ok_or("no `end` line")?;
        if body_end > 0 && !text[..body_end].ends_with('\n') {
            return Err("no `end` line".into());
        }
        let (body, end) = text.split_at(body_end);
        let crc = end
            .strip_prefix("end ")
            .and_then(|e| e.strip_suffix('\n'))
            .and_then(|e| u32::from_str_radix(e, 16).ok())
            .ok_or("a malformed `end` line")?;
        if crc != crc32fast::hash(body.as_bytes()) {
            return Err("its checksum does not match: it was changed or damaged".into());
        }
        let mut lines = body.lines();
        if lines.next() != Some(FIRST_LINE) {
            return Err(format!("not a morris app set manifest (first line not `{FIRST_LINE}`)"));
        }
        let mut field = |key: &str| {
            lines
                .next()
                .and_then(|l| l.strip_prefix(key))
                .and_then(|l| l.strip_prefix(' '))
                .map(str::to_string)
                .ok_or(format!("no `{key}` line where it belongs"))
        };
        let (variant, rules, description) =
            (field("variant")?, field("rules")?, field("description")?);
        let files = lines
            .map(|line| {
                let bad = || format!("a malformed line: {line:?}");
                let rest = line.strip_prefix("file ").ok_or_else(bad)?;
                let [name, bytes, crc] = rest.split(' ').collect::<Vec<_>>()[..] else {
                    return Err(bad());
                };
                let bytes = bytes.parse().map_err(|_| bad())?;
                let crc32 = u32::from_str_radix(crc, 16).map_err(|_| bad())?;
                if name.is_empty() || name.contains('/') {
                    return Err(bad());
                }
                Ok(ManifestFile { name: name.to_string(), bytes, crc32 })
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(Manifest { variant, rules, description, files })
    }
}

/// The size and CRC-32 of the file at `path`, read through once.
pub fn file_checksum(path: &Path) -> Result<(u64, u32), DbError> {
    let mut file = fs::File::open(path).map_err(io_error(path, "open the file"))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf).map_err(io_error(path, "read the file"))?;
        if n == 0 {
            return Ok((bytes, hasher.finalize()));
        }
        hasher.update(&buf[..n]);
        bytes += n as u64;
    }
}

impl Database {
    /// Where the manifest of an app set of this variant lives:
    /// `<dir>/<variant>-app.manifest`.
    pub fn manifest_path(&self) -> PathBuf {
        self.dir.join(format!("{}-app.manifest", self.variant.name()))
    }

    /// Where the progress table of `sector` is: `<dir>/<variant>-<sector>.prg`.
    pub fn progress_path(&self, sector: Sector) -> PathBuf {
        self.dir.join(format!("{}-{}.prg", self.variant.name(), sector))
    }

    /// The manifest of the app set in this directory, read and checked
    /// once: `None` where there is none (a plain database). An error
    /// where it is damaged, or names another variant or other rules than
    /// this database's.
    pub fn app_manifest(&self) -> Result<Option<Arc<Manifest>>, DbError> {
        let mut kept = self.app.lock().unwrap();
        if let Some(found) = &*kept {
            return Ok(found.clone());
        }
        let path = self.manifest_path();
        let found = match fs::read(&path) {
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(io_error(&path, "read the manifest")(e)),
            Ok(bytes) => Some(Arc::new(self.checked_manifest(&path, &bytes)?)),
        };
        *kept = Some(found.clone());
        Ok(found)
    }

    /// Whether this directory is an app set ([`Database::app_manifest`]);
    /// a damaged manifest is not one (the reads that need it say why).
    pub fn is_app_set(&self) -> bool {
        matches!(self.app_manifest(), Ok(Some(_)))
    }

    fn checked_manifest(&self, path: &Path, bytes: &[u8]) -> Result<Manifest, DbError> {
        let bad = |what: String| DbError::AppSet { path: path.to_owned(), what };
        let text = std::str::from_utf8(bytes).map_err(|_| bad("not UTF-8 text".into()))?;
        let manifest = Manifest::parse(text).map_err(bad)?;
        if manifest.variant != self.variant.name() {
            return Err(bad(format!(
                "it is an app set of {}, not of {}",
                manifest.variant,
                self.variant.name()
            )));
        }
        let rules = self.variant.rules_key();
        if manifest.rules != rules {
            return Err(bad(format!(
                "it was made under the rules {:?}, not the rules asked ({rules:?}){}",
                manifest.rules,
                match self.rules_option().as_str() {
                    "" => String::new(),
                    options => format!(" with{options}"),
                }
            )));
        }
        Ok(manifest)
    }

    /// Writes the manifest of the app set in this directory: every
    /// win/draw/loss table, derived stub and progress table of this
    /// variant in it, with their sizes and checksums, described as
    /// `description`. Written atomically; returns it.
    pub fn write_manifest(&self, description: &str) -> Result<Manifest, DbError> {
        let prefix = format!("{}-", self.variant.name());
        let mut names: Vec<String> = fs::read_dir(&self.dir)
            .map_err(io_error(&self.dir, "list the directory"))?
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| {
                n.starts_with(&prefix)
                    && [".wdl", ".derived", ".prg"].iter().any(|ext| n.ends_with(ext))
            })
            .collect();
        names.sort();
        let files = names
            .into_par_iter()
            .map(|name| {
                let (bytes, crc32) = file_checksum(&self.dir.join(&name))?;
                Ok(ManifestFile { name, bytes, crc32 })
            })
            .collect::<Result<Vec<_>, DbError>>()?;
        let manifest = Manifest {
            variant: self.variant.name().to_string(),
            rules: self.variant.rules_key(),
            description: description.replace('\n', " "),
            files,
        };
        let path = self.manifest_path();
        write_atomically(
            &path,
            |file, tmp| {
                use std::io::Write;
                file.write_all(manifest.to_text().as_bytes())
                    .map_err(io_error(tmp, "write the manifest"))
            },
            |path, op, source| DbError::Io { path: path.to_owned(), op, source },
        )?;
        *self.app.lock().unwrap() = None;
        Ok(manifest)
    }

    /// The files of the app set that are not as its manifest says: each
    /// missing, of another size or checksum, with what is wrong. Reads
    /// every file through once.
    pub fn check_app_files(&self, manifest: &Manifest) -> Vec<String> {
        manifest
            .files
            .par_iter()
            .filter_map(|f| {
                let path = self.dir.join(&f.name);
                match file_checksum(&path) {
                    Err(e) => Some(e.to_string()),
                    Ok((bytes, _)) if bytes != f.bytes => Some(format!(
                        "{}: {bytes} bytes, the manifest says {}",
                        path.display(),
                        f.bytes
                    )),
                    Ok((_, crc)) if crc != f.crc32 => Some(format!(
                        "{}: checksum {crc:08x}, the manifest says {:08x}",
                        path.display(),
                        f.crc32
                    )),
                    Ok(_) => None,
                }
            })
            .collect()
    }

    /// The progress table of `sector`, opened once and kept, its slots
    /// checked against the index.
    pub fn progress_table(&self, sector: Sector) -> Result<Arc<ProgressTable<Mmap>>, DbError> {
        if let Some(t) = self.open_progress.lock().unwrap().get(&sector) {
            return Ok(t.clone());
        }
        let path = self.progress_path(sector);
        let table = ProgressTable::open(&path, &self.variant.rules_key(), &sector.to_string())?;
        self.check_slots(sector, table.info(), &path)?;
        table.keep_blocks(self.kept_blocks);
        let table = Arc::new(table);
        self.open_progress.lock().unwrap().insert(sector, table.clone());
        Ok(table)
    }

    /// Forgets the progress table of `sector` opened before, so that the
    /// next read opens the file anew (after it was written).
    pub fn forget_progress(&self, sector: Sector) {
        self.open_progress.lock().unwrap().remove(&sector);
    }

    /// The progress depth of a **won** state ([`crate::progress`]) where
    /// this is an app set and the state's sector is one of a cyclic pair;
    /// `None` elsewhere (where keeping the win is enough, or no progress
    /// tier is there). Asked of a state that is not won, it gives a
    /// meaningless depth.
    pub fn progress_depth(&self, state: &State) -> Result<Option<u32>, DbError> {
        let sector = Sector::of(state);
        if state.mover_stones() < 3 || !is_cyclic(&self.variant, sector) || !self.is_app_set() {
            return Ok(None);
        }
        let slot = self.indexer.sector(sector).rank(state.mover, state.opponent);
        Ok(Some(self.progress_table(sector)?.won_depth(slot)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            variant: "six".into(),
            rules: "six rules".into(),
            description: "six (flying at 3 stones)".into(),
            files: vec![
                ManifestFile { name: "six-3-3.wdl".into(), bytes: 1234, crc32: 0xdead_beef },
                ManifestFile { name: "six-3-3.prg".into(), bytes: 99, crc32: 7 },
            ],
        }
    }

    #[test]
    fn a_manifest_reads_back_as_written() {
        let m = sample();
        assert_eq!(Manifest::parse(&m.to_text()), Ok(m));
    }

    #[test]
    fn a_changed_or_cut_manifest_is_refused() {
        let text = sample().to_text();
        let changed = text.replace("1234", "1235");
        assert!(Manifest::parse(&changed).unwrap_err().contains("checksum"));
        let cut = &text[..text.len() - 3];
        assert!(Manifest::parse(cut).is_err());
        assert!(Manifest::parse("").is_err());
        assert!(Manifest::parse("end 00000000\n").is_err());
    }
}
