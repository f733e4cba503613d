//! A glTF file opened: its document and the bytes of every buffer it
//! names, and the bytes of its images on request.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;

use super::prepare::{prepare, Decode};
use super::GltfError;
use crate::vfs::GameFile;

/// A glTF file read: the document and its buffers' bytes. The file itself
/// is not held; a .gltf's folder is, for images beside it.
pub struct GltfFile {
    /// The file as the user named it, for messages.
    pub name: String,
    pub document: gltf::Document,
    /// Per buffer of the document, its bytes: at least `byteLength` of
    /// them (none for a meshopt fallback buffer), then the buffers decoded
    /// from compressed views and primitives.
    buffers: Vec<Vec<u8>>,
    /// Where relative URIs point: the folder of a file on disk.
    folder: Option<PathBuf>,
    /// Material properties the file gets wrong, each drawn with glTF's
    /// default, for the loader to report with the images' warnings.
    pub material_warnings: Vec<String>,
}

/// An image's encoded bytes and what to call it.
pub struct ImageData {
    /// `file: images[i]` for an embedded image, the path of an external one.
    pub label: String,
    /// "png", "jpg" or "webp", from the MIME type or the file name.
    pub extension: String,
    pub bytes: Arc<[u8]>,
}

impl GltfFile {
    /// Reads `file` (.glb or .gltf) and every buffer it names. A buffer that
    /// cannot be read, or is shorter than its `byteLength`, is an error.
    pub fn open(file: &GameFile) -> Result<GltfFile, GltfError> {
        let name = file.to_string();
        let bytes = file
            .read()
            .map_err(|e| GltfError::new(&name, "", format!("cannot read the file: {e}")))?;
        let folder = file
            .loose_path()
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        GltfFile::from_bytes(&name, &bytes, folder)
    }

    /// [`GltfFile::open`] of bytes already read; `folder` resolves relative
    /// URIs (none: a file that names one is an error).
    pub fn from_bytes(
        name: &str,
        bytes: &[u8],
        folder: Option<PathBuf>,
    ) -> Result<GltfFile, GltfError> {
        check_glb_header(name, bytes)?;
        let (json, mut blob) = if bytes.starts_with(b"glTF") {
            let glb = gltf::Glb::from_slice(bytes).map_err(|e| document_error(name, e))?;
            (glb.json.into_owned(), glb.bin.map(|b| b.into_owned()))
        } else {
            (bytes.to_vec(), None)
        };
        let json: serde_json::Value = serde_json::from_slice(&json)
            .map_err(|e| GltfError::new(name, "", format!("not glTF JSON: {e}")))?;
        let mut prepared = prepare(name, json)?;
        let material_warnings = std::mem::take(&mut prepared.material_warnings);
        let root: gltf::json::Root = serde_json::from_value(prepared.json)
            .map_err(|e| GltfError::new(name, "", format!("not glTF JSON: {e}")))?;
        let document = gltf::Document::from_json(root).map_err(|e| document_error(name, e))?;
        let mut buffers = Vec::with_capacity(document.buffers().len());
        for buffer in document.buffers().take(prepared.original_buffers) {
            let path = format!("buffers[{}]", buffer.index());
            if prepared.fallback[buffer.index()] {
                buffers.push(Vec::new());
                continue;
            }
            let data = match buffer.source() {
                gltf::buffer::Source::Bin => blob.take().ok_or_else(|| {
                    GltfError::new(name, &path, "names the .glb's BIN chunk, and there is none")
                })?,
                gltf::buffer::Source::Uri(uri) => read_uri(uri, folder.as_deref())
                    .map_err(|message| GltfError::new(name, format!("{path}.uri"), message))?,
            };
            if data.len() < buffer.length() {
                return Err(GltfError::new(
                    name,
                    &path,
                    format!(
                        "byteLength is {}, but only {} bytes are there",
                        buffer.length(),
                        data.len()
                    ),
                ));
            }
            buffers.push(data);
        }
        let mut file = GltfFile {
            name: name.to_owned(),
            document,
            buffers,
            folder,
            material_warnings,
        };
        for decode in &prepared.decodes {
            let decoded = file.decode(decode)?;
            file.buffers.push(decoded);
        }
        Ok(file)
    }

    /// The bytes a compressed view or primitive decodes to.
    fn decode(&self, decode: &Decode) -> Result<Vec<u8>, GltfError> {
        match decode {
            Decode::Meshopt(view) => {
                let source = self.buffers[view.buffer].as_slice();
                let compressed = view
                    .offset
                    .checked_add(view.length)
                    .and_then(|end| source.get(view.offset..end))
                    .ok_or_else(|| {
                        GltfError::new(
                            &self.name,
                            &view.path,
                            format!(
                                "bytes {}..+{} lie past buffers[{}] ({} bytes)",
                                view.offset,
                                view.length,
                                view.buffer,
                                source.len()
                            ),
                        )
                    })?;
                view.decode(&self.name, compressed)
            }
            Decode::Draco(primitive) => {
                let view = self
                    .document
                    .views()
                    .nth(primitive.view)
                    .expect("checked against the file's views");
                primitive.decode(&self.name, self.view_bytes(&view)?)
            }
        }
    }

    /// The bytes of buffer view `view`, checked against its buffer.
    pub fn view_bytes(&self, view: &gltf::buffer::View) -> Result<&[u8], GltfError> {
        let buffer = &self.buffers[view.buffer().index()];
        view.offset()
            .checked_add(view.length())
            .filter(|&end| end <= view.buffer().length())
            .and_then(|end| buffer.get(view.offset()..end))
            .ok_or_else(|| {
                GltfError::new(
                    &self.name,
                    format!("bufferViews[{}]", view.index()),
                    format!(
                        "bytes {}..+{} lie past buffer {} ({} bytes)",
                        view.offset(),
                        view.length(),
                        view.buffer().index(),
                        view.buffer().length()
                    ),
                )
            })
    }

    /// Image `image`'s encoded bytes. Errors are warnings for the caller:
    /// a missing image is drawn with its map's default.
    pub fn image(&self, image: &gltf::Image) -> Result<ImageData, String> {
        let path = format!("images[{}]", image.index());
        let extension_of_mime = |mime: &str| match mime {
            "image/png" => Some("png"),
            "image/jpeg" => Some("jpg"),
            "image/webp" => Some("webp"),
            _ => None,
        };
        match image.source() {
            gltf::image::Source::View { view, mime_type } => {
                let bytes = self.view_bytes(&view).map_err(|e| e.to_string())?;
                Ok(ImageData {
                    label: format!("{}: {path}", self.name),
                    extension: extension_of_mime(mime_type).unwrap_or("png").to_owned(),
                    bytes: bytes.into(),
                })
            }
            gltf::image::Source::Uri { uri, mime_type } => {
                let bytes = read_uri(uri, self.folder.as_deref())
                    .map_err(|message| format!("{}: {path}.uri: {message}", self.name))?;
                let label = if uri.starts_with("data:") {
                    format!("{}: {path}", self.name)
                } else {
                    self.folder
                        .as_deref()
                        .unwrap_or(Path::new(""))
                        .join(percent_decode(uri))
                        .display()
                        .to_string()
                };
                let extension = mime_type
                    .and_then(extension_of_mime)
                    .or_else(|| data_uri_mime(uri).and_then(extension_of_mime))
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        Path::new(&percent_decode(uri))
                            .extension()
                            .map(|e| e.to_string_lossy().to_lowercase())
                            .unwrap_or_default()
                    });
                Ok(ImageData {
                    label,
                    extension,
                    bytes: bytes.into(),
                })
            }
        }
    }
}

/// The gltf crate subtracts the header from the length it reads before
/// checking it: a length under 12 must not reach it.
fn check_glb_header(name: &str, bytes: &[u8]) -> Result<(), GltfError> {
    if !bytes.starts_with(b"glTF") {
        return Ok(());
    }
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(GltfError::new(
            name,
            "",
            format!(
                "truncated .glb: {} bytes, shorter than its 12-byte header",
                bytes.len()
            ),
        ));
    };
    if version != 2 {
        return Err(GltfError::new(
            name,
            "",
            format!(".glb version {version}; md5crowd reads glTF 2.0"),
        ));
    }
    if length < 12 || length as usize > bytes.len() {
        return Err(GltfError::new(
            name,
            "",
            format!(
                "truncated .glb: its header says {length} bytes, the file has {}",
                bytes.len()
            ),
        ));
    }
    Ok(())
}

fn document_error(name: &str, error: gltf::Error) -> GltfError {
    match error {
        gltf::Error::Validation(errors) => {
            let more = match errors.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more problems)", n - 1),
            };
            match errors.first() {
                Some((path, error)) => {
                    GltfError::new(name, path.to_string(), format!("{error}{more}"))
                }
                None => GltfError::new(name, "", "invalid glTF"),
            }
        }
        gltf::Error::Binary(error) => GltfError::new(name, "", format!("bad .glb: {error}")),
        error => GltfError::new(name, "", error.to_string()),
    }
}

/// The bytes a buffer's or image's URI names: a base64 data URI, or a
/// file relative to `folder` (percent-encoded, as URIs are).
fn read_uri(uri: &str, folder: Option<&Path>) -> Result<Vec<u8>, String> {
    if let Some(rest) = uri.strip_prefix("data:") {
        let (header, data) = rest
            .split_once(',')
            .ok_or_else(|| "a data URI without a comma".to_owned())?;
        if !header.ends_with(";base64") {
            return Err(format!("data URI \"{header}\" is not base64"));
        }
        return base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| format!("bad base64 in a data URI: {e}"));
    }
    if uri.contains("://") {
        return Err(format!(
            "\"{uri}\": only files beside the glTF and data URIs are read"
        ));
    }
    let Some(folder) = folder else {
        return Err(format!(
            "\"{uri}\" names a file beside the glTF, and this glTF is not a file on disk"
        ));
    };
    let path = folder.join(percent_decode(uri));
    std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn data_uri_mime(uri: &str) -> Option<&str> {
    uri.strip_prefix("data:")?.split([';', ',']).next()
}

/// `%XX` escapes decoded (RFC 3986), as exporters write spaces and other
/// characters in file names; a malformed escape is kept as written.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escape = (bytes[i] == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escape {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&decoded).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_are_decoded_and_bad_ones_kept() {
        assert_eq!(percent_decode("my%20fox.bin"), "my fox.bin");
        assert_eq!(percent_decode("a%2"), "a%2");
        assert_eq!(percent_decode("100%zz"), "100%zz");
    }

    #[test]
    fn a_glb_length_under_its_header_is_refused_before_the_gltf_crate_sees_it() {
        let mut glb = b"glTF".to_vec();
        glb.extend(2u32.to_le_bytes());
        glb.extend(4u32.to_le_bytes());
        let error = GltfFile::from_bytes("t.glb", &glb, None)
            .err()
            .expect("refused");
        assert!(error.message.contains("truncated"), "{error}");
    }

    #[test]
    fn data_uris_decode_and_other_schemes_are_refused() {
        assert_eq!(
            read_uri("data:application/octet-stream;base64,AAEC", None),
            Ok(vec![0, 1, 2])
        );
        assert!(read_uri("https://example.com/a.bin", None).is_err());
        assert!(read_uri("a.bin", None)
            .unwrap_err()
            .contains("not a file on disk"));
    }
}
