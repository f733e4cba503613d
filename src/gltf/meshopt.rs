//! EXT_meshopt_compression and KHR_meshopt_compression: buffer views
//! stored compressed by meshoptimizer's codecs, decoded with its own
//! decoder (the `meshopt` crate). The decoded size a view claims is held
//! to what its compressed bytes can hold before anything is allocated.

use serde_json::Value;

use super::prepare::index_field;
use super::GltfError;

/// The most decoded bytes one compressed byte may claim. meshoptimizer's
/// vertex codec needs at least a 2-bit header per 16 bytes of a byte
/// channel (v0), or a 2-bit control per 256 vertices of one (v1): 1024
/// decoded bytes per compressed one at the most.
const MAX_EXPANSION: usize = 1024;
/// And at most this many decoded bytes per view, whatever it holds.
const MAX_DECODED_VIEW: usize = 1 << 28;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    Color,
}

/// A compressed buffer view: where its compressed bytes lie and how they
/// decode.
pub struct MeshoptView {
    /// `bufferViews[i].extensions.EXT_meshopt_compression`, for messages.
    pub path: String,
    pub buffer: usize,
    pub offset: usize,
    pub length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

impl MeshoptView {
    /// The meshopt extension of buffer view `view` (JSON `value`), if it
    /// has one; `buffers` is how many buffers the file declares.
    pub fn read(
        name: &str,
        value: &Value,
        view: usize,
        buffers: usize,
    ) -> Result<Option<MeshoptView>, GltfError> {
        let Some((extension, object)) = ["EXT_meshopt_compression", "KHR_meshopt_compression"]
            .iter()
            .find_map(|e| Some((*e, value["extensions"].get(*e)?)))
        else {
            return Ok(None);
        };
        let path = format!("bufferViews[{view}].extensions.{extension}");
        let error = |message: String| GltfError::new(name, &path, message);
        let field = |key: &str| index_field(name, object, key, &path);
        let buffer = field("buffer")?;
        if buffer >= buffers {
            return Err(error(format!(
                "buffer {buffer}, but the file has {buffers} buffers"
            )));
        }
        let offset = if object.get("byteOffset").is_some() {
            field("byteOffset")?
        } else {
            0
        };
        let (length, stride, count) = (field("byteLength")?, field("byteStride")?, field("count")?);
        let mode = match object["mode"].as_str() {
            Some("ATTRIBUTES") => Mode::Attributes,
            Some("TRIANGLES") => Mode::Triangles,
            Some("INDICES") => Mode::Indices,
            _ => return Err(error(format!("unknown mode {}", object["mode"]))),
        };
        let filter = match object.get("filter").and_then(Value::as_str) {
            None | Some("NONE") => Filter::None,
            Some("OCTAHEDRAL") => Filter::Octahedral,
            Some("QUATERNION") => Filter::Quaternion,
            Some("EXPONENTIAL") => Filter::Exponential,
            Some("COLOR") if extension == "KHR_meshopt_compression" => Filter::Color,
            _ => return Err(error(format!("unknown filter {}", object["filter"]))),
        };
        let meshopt = MeshoptView {
            path,
            buffer,
            offset,
            length,
            stride,
            count,
            mode,
            filter,
        };
        meshopt.check(name, value)?;
        Ok(Some(meshopt))
    }

    /// The stride, count and filter the mode allows, the view's own length
    /// agreeing, and a decoded size the compressed bytes can hold.
    fn check(&self, name: &str, view: &Value) -> Result<(), GltfError> {
        let error = |message: String| Err(GltfError::new(name, &self.path, message));
        let stride = self.stride;
        let stride_fits = match self.mode {
            Mode::Attributes => stride.is_multiple_of(4) && (4..=256).contains(&stride),
            Mode::Triangles | Mode::Indices => stride == 2 || stride == 4,
        };
        if !stride_fits {
            return error(format!(
                "byteStride {stride} is not allowed in {:?} mode",
                self.mode
            ));
        }
        if self.mode == Mode::Triangles && !self.count.is_multiple_of(3) {
            return error(format!(
                "{} indices do not make whole triangles",
                self.count
            ));
        }
        let filter_fits = match self.filter {
            Filter::None => true,
            _ if self.mode != Mode::Attributes => false,
            Filter::Octahedral | Filter::Color => stride == 4 || stride == 8,
            Filter::Quaternion => stride == 8,
            Filter::Exponential => true,
        };
        if !filter_fits {
            return error(format!(
                "the {:?} filter does not apply to byteStride {stride} in {:?} mode",
                self.filter, self.mode
            ));
        }
        let Some(decoded) = self.count.checked_mul(stride) else {
            return error(format!(
                "{} elements of {stride} bytes overflow",
                self.count
            ));
        };
        if view["byteLength"].as_u64() != Some(decoded as u64) {
            return error(format!(
                "decodes to {} elements of {stride} bytes ({decoded}), but the view's byteLength \
                 is {}",
                self.count, view["byteLength"]
            ));
        }
        // Each triangle is at least one code byte, each index at least one
        // byte; vertices see MAX_EXPANSION.
        let most = match self.mode {
            Mode::Triangles => self.length.saturating_mul(3).saturating_mul(stride),
            Mode::Indices => self.length.saturating_mul(stride),
            Mode::Attributes => self.length.saturating_mul(MAX_EXPANSION),
        }
        .min(MAX_DECODED_VIEW);
        if decoded > most {
            return error(format!(
                "{decoded} decoded bytes claimed from {} compressed ones; at most {most} are \
                 taken on trust",
                self.length
            ));
        }
        Ok(())
    }

    pub fn decoded_length(&self) -> usize {
        self.count * self.stride
    }

    /// The view's bytes decoded from `compressed` (the `byteLength` bytes
    /// at its `byteOffset` in its buffer).
    pub fn decode(&self, name: &str, compressed: &[u8]) -> Result<Vec<u8>, GltfError> {
        let error = |what: &str, e: meshopt::Error| {
            GltfError::new(
                name,
                &self.path,
                format!("{} bytes do not decode as {what}: {e}", compressed.len()),
            )
        };
        let count = self.count;
        let mut bytes = match (self.mode, self.stride) {
            (Mode::Attributes, stride) => {
                decode_vertices(compressed, count, stride).map_err(|e| error("vertices", e))?
            }
            (Mode::Triangles, 2) => meshopt::decode_index_buffer::<u16>(compressed, count)
                .map_err(|e| error("triangles", e))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            (Mode::Triangles, _) => meshopt::decode_index_buffer::<u32>(compressed, count)
                .map_err(|e| error("triangles", e))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            (Mode::Indices, 2) => meshopt::decode_index_sequence::<u16>(compressed, count)
                .map_err(|e| error("indices", e))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
            (Mode::Indices, _) => meshopt::decode_index_sequence::<u32>(compressed, count)
                .map_err(|e| error("indices", e))?
                .iter()
                .flat_map(|i| i.to_le_bytes())
                .collect(),
        };
        self.unfilter(&mut bytes);
        Ok(bytes)
    }

    /// The filter undone in place (`bytes`: whole elements of `stride`).
    fn unfilter(&self, bytes: &mut [u8]) {
        match (self.filter, self.stride) {
            (Filter::None, _) => {}
            (Filter::Octahedral, 4) => in_place::<[i8; 4], _>(bytes, meshopt::decode_filter_oct),
            (Filter::Octahedral, _) => in_place::<[i16; 4], _>(bytes, meshopt::decode_filter_oct),
            (Filter::Quaternion, _) => in_place::<[i16; 4], _>(bytes, meshopt::decode_filter_quat),
            (Filter::Exponential, _) => {
                in_place::<[u32; 1], _>(bytes, meshopt::decode_filter_exp::<1>)
            }
            (Filter::Color, 4) => in_place::<[u8; 4], _>(bytes, meshopt::decode_filter_color),
            (Filter::Color, _) => in_place::<[u16; 4], _>(bytes, meshopt::decode_filter_color),
        }
    }
}

/// meshoptimizer's vertex decoder, for any stride: the crate's typed
/// wrapper needs the vertex size as a type.
fn decode_vertices(
    compressed: &[u8],
    count: usize,
    stride: usize,
) -> Result<Vec<u8>, meshopt::Error> {
    let mut decoded = vec![0u8; count * stride];
    // SAFETY: `decoded` holds `count` vertices of `stride` bytes, all the
    // decoder writes; it reads no more than `compressed.len()` bytes.
    let code = unsafe {
        meshopt::ffi::meshopt_decodeVertexBuffer(
            decoded.as_mut_ptr().cast(),
            count,
            stride,
            compressed.as_ptr(),
            compressed.len(),
        )
    };
    if code == 0 {
        Ok(decoded)
    } else {
        Err(meshopt::Error::Native(code))
    }
}

/// `filter` run on `bytes` seen as elements of `T`: copied out and back,
/// as the bytes need not be aligned for `T`.
fn in_place<T: bytemuck::Pod, F: FnOnce(&mut [T])>(bytes: &mut [u8], filter: F) {
    let mut elements: Vec<T> = bytes
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
        .collect();
    filter(&mut elements);
    bytes.copy_from_slice(bytemuck::cast_slice(&elements));
}
