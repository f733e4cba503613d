//! One `.pk4` (zip) archive: its index, read once, and its entries' bytes,
//! read on demand by reopening the file (no handle is held, so reads from
//! several threads need no lock, and a folder of many archives holds no
//! file descriptors).

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use zip::read::ZipArchiveMetadata;
use zip::{ZipArchive, ZipReadOptions};

use super::MAX_FILE_BYTES;

pub(super) struct Archive {
    path: PathBuf,
    /// The zip index (central directory), shared with every read.
    metadata: Arc<ZipArchiveMetadata>,
    /// Each file's path in lower case, `\` made `/`, to its zip index. Of
    /// two entries with one name the later wins, as in the game (its hash
    /// chains put later entries first).
    by_name: HashMap<Box<str>, usize>,
}

impl std::fmt::Debug for Archive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Archive({}, {} files)", self.path.display(), self.len())
    }
}

impl Archive {
    /// Reads the archive's index (not its files).
    pub(super) fn open(path: &Path) -> Result<Archive, zip::result::ZipError> {
        let file = File::open(path)?;
        let metadata = ZipArchive::new(BufReader::new(file))?.metadata();
        let mut by_name = HashMap::with_capacity(metadata.len());
        for index in 0..metadata.len() {
            let entry = metadata.entry(index)?;
            if entry.is_dir() {
                continue;
            }
            let name = entry.name()?.replace('\\', "/").to_ascii_lowercase();
            by_name.insert(name.into_boxed_str(), index);
        }
        Ok(Archive {
            path: path.to_path_buf(),
            metadata,
            by_name,
        })
    }

    pub(super) fn path(&self) -> &Path {
        &self.path
    }

    /// Files (not folders) in the index.
    pub(super) fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Why the game would not search this archive, if it would not: a
    /// downloaded map's (`addon.conf`), searched only while that map is
    /// loaded, or game code (`binary.conf`).
    pub(super) fn left_out_because(&self) -> Option<&'static str> {
        if self.by_name.contains_key("binary.conf") {
            Some("binary.conf: game code, which the game does not search either")
        } else if self.by_name.contains_key("addon.conf") {
            Some("addon.conf: an addon, which the game searches only while one of its maps is loaded")
        } else {
            None
        }
    }

    /// The entry at `key` (lower case, `/`-separated, no leading `/`).
    pub(super) fn find(&self, key: &str) -> Option<usize> {
        self.by_name.get(key).copied()
    }

    /// The entries directly in folder `dir_key` (lower case, no trailing
    /// `/`; `""` for the root) whose extension is `extension` (any case),
    /// as (file name in lower case, entry).
    pub(super) fn list<'a>(
        &'a self,
        dir_key: &'a str,
        extension: &'a str,
    ) -> impl Iterator<Item = (String, usize)> + 'a {
        let extension = extension.to_ascii_lowercase();
        self.by_name.iter().filter_map(move |(key, &entry)| {
            let name = match key.rsplit_once('/') {
                Some((dir, name)) if dir == dir_key => name,
                None if dir_key.is_empty() => key,
                _ => return None,
            };
            let (stem, ext) = name.rsplit_once('.')?;
            (!stem.is_empty() && ext == extension).then(|| (name.to_owned(), entry))
        })
    }

    /// The entry's path as the archive spells it, `\` made `/`.
    pub(super) fn entry_name(&self, entry: usize) -> String {
        self.metadata
            .entry(entry)
            .ok()
            .and_then(|e| e.name().ok().map(|name| name.replace('\\', "/")))
            .unwrap_or_default()
    }

    /// The entry's bytes, inflated and checked against its CRC. At most
    /// [`MAX_FILE_BYTES`] are read whatever the index says.
    pub(super) fn read(&self, entry: usize) -> io::Result<Vec<u8>> {
        let mut file = BufReader::new(File::open(&self.path)?);
        let entry = self.metadata.entry(entry).map_err(io::Error::other)?;
        let reader = entry
            .with_reader(&mut file, ZipReadOptions::new())
            .map_err(io::Error::other)?;
        let mut bytes = Vec::new();
        reader.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes)?;
        if bytes.len() as u64 > MAX_FILE_BYTES {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("larger than {} MiB", MAX_FILE_BYTES >> 20),
            ));
        }
        Ok(bytes)
    }
}
