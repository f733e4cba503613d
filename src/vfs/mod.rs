//! A game folder as the game sees it: loose files plus the `*.pk4` (zip)
//! archives beside them, one tree of `/`-separated paths matched in any
//! case. Nothing here knows what the files hold.
//!
//! [`Vfs::open_game`] builds the search list the way id Tech 4 does
//! (dhewm3's `idFileSystemLocal::AddGameDirectory`): each game folder is
//! its loose files first, then its archives, the last by name first; a mod
//! folder's list comes before its base's. A path is looked up along that
//! list and the first holder wins, so `pak001.pk4` overrides `pak000.pk4`,
//! a loose file overrides every archive of its folder, and a mod overrides
//! its base. (FileSystem.cpp's opening comment says archives take
//! precedence over the file system; its code puts the folder first.)
//! Archives whose root holds `addon.conf` (a downloaded map, which the
//! game searches only while that map is loaded) or `binary.conf` (game
//! code) are left out, as the game leaves them out. The game's "pure"
//! mode, where a network server's archives are all it reads, has no
//! counterpart here: loose files always count, as in single player.
//!
//! An archive's index is read when the folder is opened; a file's bytes
//! only when [`GameFile::read`] is called. An archive that cannot be
//! indexed is one warning naming it, and the rest of the folder still
//! loads. A loose folder is looked up on disk at each call, as before
//! there were archives: [`Vfs::folder`] is a game of loose files only.

mod archive;
mod folder;

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use archive::Archive;
pub(crate) use folder::child_folder;

/// The largest file read whole from an archive. Entry sizes in a zip's
/// index are not trusted (a forged one would make a huge buffer); reading
/// stops here instead. Larger than any image or model a game ships.
pub const MAX_FILE_BYTES: u64 = 512 << 20;

/// One game folder's search list; cheap to clone (the archives' indexes
/// are shared).
#[derive(Clone, Debug)]
pub struct Vfs {
    /// In search order: the first that holds a path is where it is read.
    search: Arc<[Source]>,
    /// The base folder, for messages and [`Vfs::base`].
    base: PathBuf,
}

#[derive(Debug)]
enum Source {
    Folder(PathBuf),
    Archive(Arc<Archive>),
}

impl Vfs {
    /// The game in `base` (its loose files and `*.pk4` archives) with, when
    /// given, the mod in `mod_dir` searched before it (a mod that is the
    /// base itself is the base). Never fails: an archive that cannot be
    /// read, or a folder that cannot be listed, is a warning (already
    /// logged, and returned) and is left out.
    pub fn open_game(base: &Path, mod_dir: Option<&Path>) -> (Vfs, Vec<String>) {
        let mut search = Vec::new();
        let mut warnings = Vec::new();
        let mod_dir = mod_dir.filter(|dir| *dir != base);
        for dir in mod_dir.into_iter().chain([base]) {
            search.push(Source::Folder(dir.to_path_buf()));
            for path in archives_in(dir, &mut warnings) {
                match Archive::open(&path) {
                    Ok(archive) => match archive.left_out_because() {
                        Some(why) => log::info!("{}: left out ({why})", path.display()),
                        None => search.push(Source::Archive(Arc::new(archive))),
                    },
                    Err(error) => warnings.push(format!(
                        "{}: not a readable pk4 (zip) archive ({error}); left out",
                        path.display()
                    )),
                }
            }
        }
        for warning in &warnings {
            log::warn!("{warning}");
        }
        let vfs = Vfs {
            search: search.into(),
            base: base.to_path_buf(),
        };
        if vfs.archive_count() > 0 {
            log::info!(
                "game folder {vfs}: {} files in the archives",
                vfs.archives().map(Archive::len).sum::<usize>()
            );
        }
        (vfs, warnings)
    }

    /// The loose files under `dir` and no archives.
    pub fn folder(dir: &Path) -> Vfs {
        Vfs {
            search: Arc::new([Source::Folder(dir.to_path_buf())]),
            base: dir.to_path_buf(),
        }
    }

    /// The base folder [`Vfs::open_game`] or [`Vfs::folder`] was given.
    pub fn base(&self) -> &Path {
        &self.base
    }

    /// How many archives are searched.
    pub fn archive_count(&self) -> usize {
        self.archives().count()
    }

    fn archives(&self) -> impl Iterator<Item = &Archive> {
        self.search.iter().filter_map(|source| match source {
            Source::Archive(archive) => Some(archive.as_ref()),
            Source::Folder(_) => None,
        })
    }

    /// The file at `path` (any case, `/` or `\` separated, a leading `/`
    /// ignored), from the first source of the search list that holds it.
    pub fn find(&self, path: &str) -> Option<GameFile> {
        self.find_ranked(path).map(|(_, file)| file)
    }

    /// [`Vfs::find`], and the place in the search list of the source that
    /// holds the file (0 is searched first).
    pub fn find_ranked(&self, path: &str) -> Option<(usize, GameFile)> {
        let components = components(path);
        if components.is_empty() {
            return None;
        }
        let key = components.join("/").to_ascii_lowercase();
        self.search.iter().enumerate().find_map(|(rank, source)| {
            let file = match source {
                Source::Folder(dir) => folder::find(dir, &components).map(GameFile::loose),
                Source::Archive(archive) => archive
                    .find(&key)
                    .map(|entry| GameFile::archived(archive, entry)),
            }?;
            Some((rank, file))
        })
    }

    /// Whether [`Vfs::find`] finds `path`.
    pub fn exists(&self, path: &str) -> bool {
        self.find(path).is_some()
    }

    /// The bytes of the file at `path` (see [`Vfs::find`]).
    pub fn read(&self, path: &str) -> io::Result<Vec<u8>> {
        match self.find(path) {
            Some(file) => file.read(),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("no {path} in {self}"),
            )),
        }
    }

    /// The files directly in folder `dir` whose name ends in `.extension`
    /// (any case), each name once (from the first source holding it), in
    /// name order ignoring case: `list("def", "def")` is the game's
    /// `def/*.def`.
    pub fn list(&self, dir: &str, extension: &str) -> Vec<GameFile> {
        let dir = components(dir);
        let dir_key = dir.join("/").to_ascii_lowercase();
        let mut found: BTreeMap<String, GameFile> = BTreeMap::new();
        for source in self.search.iter() {
            match source {
                Source::Folder(root) => {
                    for path in folder::list(root, &dir, extension) {
                        let name = file_name_of(&path.to_string_lossy()).to_ascii_lowercase();
                        found.entry(name).or_insert_with(|| GameFile::loose(path));
                    }
                }
                Source::Archive(archive) => {
                    for (key, entry) in archive.list(&dir_key, extension) {
                        found
                            .entry(key)
                            .or_insert_with(|| GameFile::archived(archive, entry));
                    }
                }
            }
        }
        found.into_values().collect()
    }
}

impl fmt::Display for Vfs {
    /// The base folder, and how many archives it holds.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.archive_count() {
            0 => write!(f, "{}", self.base.display()),
            n => write!(f, "{} ({n} archive{})", self.base.display(), plural(n)),
        }
    }
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// A path's folders and file name: `\` is a separator too, empty and `.`
/// components are dropped.
fn components(path: &str) -> Vec<&str> {
    path.split(['/', '\\'])
        .filter(|c| !c.is_empty() && *c != ".")
        .collect()
}

fn file_name_of(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// The `*.pk4` files directly in `dir` (any case of the extension), the
/// last by name (ignoring case) first: the game sorts them so that later
/// names override earlier ones.
fn archives_in(dir: &Path, warnings: &mut Vec<String>) -> Vec<PathBuf> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(error) => {
            warnings.push(format!(
                "{}: cannot list the folder ({error})",
                dir.display()
            ));
            return Vec::new();
        }
    };
    let mut archives: Vec<(String, PathBuf)> = entries
        .filter_map(|entry| {
            let path = entry.ok()?.path();
            let name = path.file_name()?.to_str()?.to_ascii_lowercase();
            (name.ends_with(".pk4") && path.is_file()).then_some((name, path))
        })
        .collect();
    archives.sort();
    archives.into_iter().rev().map(|(_, path)| path).collect()
}

/// A file of the game: a loose file on disk or an entry of an archive.
/// It reads itself and names itself for messages (its [`fmt::Display`]:
/// the loose path, or the archive's path followed by the entry's).
#[derive(Clone)]
pub struct GameFile {
    location: Location,
}

#[derive(Clone)]
enum Location {
    Loose(PathBuf),
    Archived {
        archive: Arc<Archive>,
        entry: usize,
        /// As the archive spells it, `\` made `/`.
        name: String,
    },
}

impl GameFile {
    /// A file on disk, in a game folder or not.
    pub fn loose(path: impl Into<PathBuf>) -> GameFile {
        GameFile {
            location: Location::Loose(path.into()),
        }
    }

    fn archived(archive: &Arc<Archive>, entry: usize) -> GameFile {
        GameFile {
            location: Location::Archived {
                name: archive.entry_name(entry),
                archive: Arc::clone(archive),
                entry,
            },
        }
    }

    /// Its bytes. Errors say what went wrong, not which file: callers
    /// name it (with this file's [`fmt::Display`]).
    pub fn read(&self) -> io::Result<Vec<u8>> {
        match &self.location {
            Location::Loose(path) => std::fs::read(path),
            Location::Archived { archive, entry, .. } => archive.read(*entry),
        }
    }

    /// Its bytes as text. Bytes that are not UTF-8 (old tools wrote
    /// Latin-1 names and comments) become U+FFFD rather than failing.
    pub fn read_text(&self) -> io::Result<String> {
        let bytes = self.read()?;
        Ok(String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
    }

    /// The path on disk of a loose file.
    pub fn loose_path(&self) -> Option<&Path> {
        match &self.location {
            Location::Loose(path) => Some(path),
            Location::Archived { .. } => None,
        }
    }

    /// The last component of its path: `imp.md5mesh`.
    pub fn file_name(&self) -> String {
        match &self.location {
            Location::Loose(path) => path.file_name().map_or_else(
                || path.display().to_string(),
                |name| name.to_string_lossy().into_owned(),
            ),
            Location::Archived { name, .. } => file_name_of(name).to_owned(),
        }
    }

    /// [`GameFile::file_name`] without its extension: `imp`.
    pub fn file_stem(&self) -> String {
        self.name().file_stem()
    }

    /// Its extension in lower case, `""` when it has none.
    pub fn extension(&self) -> String {
        self.name().extension()
    }

    /// How it names itself, kept by what outlives the file system: the
    /// runtime model names its mesh file without holding the archive.
    pub fn name(&self) -> FileName {
        FileName {
            shown: self.to_string(),
            file_name: self.file_name(),
        }
    }
}

/// A [`GameFile`]'s names without the file: what messages and labels show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileName {
    /// The file's [`fmt::Display`]: its path, or its archive's and entry's.
    shown: String,
    file_name: String,
}

impl FileName {
    /// The last component of its path: `imp.md5mesh`.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// [`FileName::file_name`] without its extension: `imp`.
    pub fn file_stem(&self) -> String {
        match self.file_name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_owned(),
            _ => self.file_name.clone(),
        }
    }

    /// Its extension in lower case, `""` when it has none.
    pub fn extension(&self) -> String {
        match self.file_name.rsplit_once('.') {
            Some((stem, extension)) if !stem.is_empty() => extension.to_ascii_lowercase(),
            _ => String::new(),
        }
    }
}

impl fmt::Display for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.shown)
    }
}

impl fmt::Display for GameFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::Loose(path) => write!(f, "{}", path.display()),
            Location::Archived { archive, name, .. } => {
                write!(f, "{}/{name}", archive.path().display())
            }
        }
    }
}

impl fmt::Debug for GameFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GameFile({self})")
    }
}

/// Two references are equal when they name the same file: the same path
/// on disk, or the same entry of the same opened archive.
impl PartialEq for GameFile {
    fn eq(&self, other: &GameFile) -> bool {
        match (&self.location, &other.location) {
            (Location::Loose(a), Location::Loose(b)) => a == b,
            (
                Location::Archived {
                    archive: a,
                    entry: i,
                    ..
                },
                Location::Archived {
                    archive: b,
                    entry: j,
                    ..
                },
            ) => Arc::ptr_eq(a, b) && i == j,
            _ => false,
        }
    }
}

impl Eq for GameFile {}
