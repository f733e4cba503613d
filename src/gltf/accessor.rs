//! Accessors read into flat vectors, every offset, stride and count checked
//! against the bytes that are there before anything is allocated
//! (sparse accessors included): a file never makes us read out of bounds
//! or allocate what it merely claims.

use gltf::accessor::{sparse::IndexType, DataType, Dimensions};

use super::{GltfError, GltfFile};

/// What an accessor is read as, for the checks and the messages.
pub struct AccessorRead<'a> {
    /// What it holds, as the message says it: `POSITION of meshes[0].primitives[1]`.
    pub what: &'a str,
    pub dimensions: &'a [Dimensions],
    pub types: &'a [DataType],
}

/// An accessor without a buffer view is all zeros until its sparse values;
/// its count is the file's word alone, so it is held to this many
/// components (64 MiB of floats).
pub const MAX_COMPONENTS_WITHOUT_DATA: usize = 1 << 24;

/// Accessor `accessor` as floats, components of each element in a row:
/// normalized integers map to [0, 1] or [-1, 1], others keep their value.
pub fn read_floats(
    file: &GltfFile,
    accessor: &gltf::Accessor,
    read: &AccessorRead,
) -> Result<Vec<f32>, GltfError> {
    let normalized = accessor.normalized();
    read_elements(file, accessor, read, |bytes, data_type| {
        let value = raw_value(bytes, data_type);
        match (normalized, data_type) {
            (false, _) | (true, DataType::F32) => value as f32,
            (true, DataType::U8) => value as f32 / 255.0,
            (true, DataType::U16) => value as f32 / 65535.0,
            (true, DataType::U32) => value as f32 / u32::MAX as f32,
            (true, DataType::I8) => (value as f32 / 127.0).max(-1.0),
            (true, DataType::I16) => (value as f32 / 32767.0).max(-1.0),
        }
    })
}

/// Accessor `accessor` as unsigned integers (indices, joint numbers): its
/// type must be an unsigned integer one, not normalized.
pub fn read_integers(
    file: &GltfFile,
    accessor: &gltf::Accessor,
    read: &AccessorRead,
) -> Result<Vec<u32>, GltfError> {
    if accessor.normalized() {
        return Err(GltfError::new(
            &file.name,
            path_of(accessor),
            format!("{} is normalized; it must hold plain integers", read.what),
        ));
    }
    read_elements(file, accessor, read, |bytes, data_type| {
        raw_value(bytes, data_type) as u32
    })
}

fn path_of(accessor: &gltf::Accessor) -> String {
    format!("accessors[{}]", accessor.index())
}

/// A component's value: exact in f64 for every glTF component type.
fn raw_value(bytes: &[u8], data_type: DataType) -> f64 {
    let word = |n: usize| -> [u8; 4] {
        let mut w = [0; 4];
        w[..n].copy_from_slice(&bytes[..n]);
        w
    };
    match data_type {
        DataType::I8 => f64::from(bytes[0] as i8),
        DataType::U8 => f64::from(bytes[0]),
        DataType::I16 => f64::from(i16::from_le_bytes([bytes[0], bytes[1]])),
        DataType::U16 => f64::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        DataType::U32 => f64::from(u32::from_le_bytes(word(4))),
        DataType::F32 => f64::from(f32::from_le_bytes(word(4))),
    }
}

fn type_name(data_type: DataType) -> &'static str {
    match data_type {
        DataType::I8 => "BYTE",
        DataType::U8 => "UNSIGNED_BYTE",
        DataType::I16 => "SHORT",
        DataType::U16 => "UNSIGNED_SHORT",
        DataType::U32 => "UNSIGNED_INT",
        DataType::F32 => "FLOAT",
    }
}

fn dimensions_name(dimensions: Dimensions) -> &'static str {
    match dimensions {
        Dimensions::Scalar => "SCALAR",
        Dimensions::Vec2 => "VEC2",
        Dimensions::Vec3 => "VEC3",
        Dimensions::Vec4 => "VEC4",
        Dimensions::Mat2 => "MAT2",
        Dimensions::Mat3 => "MAT3",
        Dimensions::Mat4 => "MAT4",
    }
}

fn read_elements<T: Copy + Default>(
    file: &GltfFile,
    accessor: &gltf::Accessor,
    read: &AccessorRead,
    decode: impl Fn(&[u8], DataType) -> T,
) -> Result<Vec<T>, GltfError> {
    let path = path_of(accessor);
    let error = |message: String| GltfError::new(&file.name, &path, message);
    let (dimensions, data_type) = (accessor.dimensions(), accessor.data_type());
    if !read.dimensions.contains(&dimensions) || !read.types.contains(&data_type) {
        let list = |names: Vec<&str>| names.join(" or ");
        return Err(error(format!(
            "{}: expected {} of {}, found {} of {}",
            read.what,
            list(
                read.dimensions
                    .iter()
                    .map(|&d| dimensions_name(d))
                    .collect()
            ),
            list(read.types.iter().map(|&t| type_name(t)).collect()),
            dimensions_name(dimensions),
            type_name(data_type)
        )));
    }
    let size = data_type.size();
    let components = dimensions.multiplicity();
    if matches!(dimensions, Dimensions::Mat2 | Dimensions::Mat3) && size < 4 {
        return Err(error(format!(
            "{}: matrices of {} (padded columns) are not read",
            read.what,
            type_name(data_type)
        )));
    }
    let element = size * components;
    let count = accessor.count();
    let mut values = match accessor.view() {
        Some(view) => {
            let bytes = file.view_bytes(&view)?;
            let stride = view.stride().unwrap_or(element);
            if stride < element {
                return Err(error(format!(
                    "bufferViews[{}].byteStride {stride} is less than an element ({element} bytes)",
                    view.index()
                )));
            }
            let end = count
                .checked_sub(1)
                .map_or(Some(0), |last| {
                    last.checked_mul(stride)
                        .and_then(|at| at.checked_add(element))
                        .and_then(|at| at.checked_add(accessor.offset()))
                })
                .filter(|&end| end <= bytes.len());
            if end.is_none() {
                return Err(error(format!(
                    "{}: {count} elements of {element} bytes from byte {} (stride {stride}) lie \
                     past bufferViews[{}] ({} bytes)",
                    read.what,
                    accessor.offset(),
                    view.index(),
                    bytes.len()
                )));
            }
            let mut values = Vec::with_capacity(count * components);
            for i in 0..count {
                let start = accessor.offset() + i * stride;
                for c in 0..components {
                    values.push(decode(&bytes[start + c * size..], data_type));
                }
            }
            values
        }
        None if count.saturating_mul(components) > MAX_COMPONENTS_WITHOUT_DATA => {
            return Err(error(format!(
                "{}: {count} elements of {components} and no bufferView; at most \
                 {MAX_COMPONENTS_WITHOUT_DATA} components are taken on trust",
                read.what
            )))
        }
        None => vec![T::default(); count * components],
    };
    if let Some(sparse) = accessor.sparse() {
        let replaced = sparse.count();
        let indices = sparse.indices();
        let index_size = match indices.index_type() {
            IndexType::U8 => 1,
            IndexType::U16 => 2,
            IndexType::U32 => 4,
        };
        let index_bytes = file.view_bytes(&indices.view())?;
        let value_bytes = file.view_bytes(&sparse.values().view())?;
        let fits = |bytes: &[u8], offset: usize, width: usize| {
            replaced
                .checked_mul(width)
                .and_then(|n| n.checked_add(offset))
                .is_some_and(|end| end <= bytes.len())
        };
        if !fits(index_bytes, indices.offset(), index_size)
            || !fits(value_bytes, sparse.values().offset(), element)
        {
            return Err(GltfError::new(
                &file.name,
                format!("{path}.sparse"),
                format!("{replaced} sparse indices or values lie past their buffer views"),
            ));
        }
        let mut previous = None;
        for k in 0..replaced {
            let at = indices.offset() + k * index_size;
            let index = match indices.index_type() {
                IndexType::U8 => u32::from(index_bytes[at]),
                IndexType::U16 => {
                    u32::from(u16::from_le_bytes([index_bytes[at], index_bytes[at + 1]]))
                }
                IndexType::U32 => u32::from_le_bytes([
                    index_bytes[at],
                    index_bytes[at + 1],
                    index_bytes[at + 2],
                    index_bytes[at + 3],
                ]),
            } as usize;
            if index >= count || previous.is_some_and(|p| index <= p) {
                return Err(GltfError::new(
                    &file.name,
                    format!("{path}.sparse.indices"),
                    format!(
                        "index {index} at position {k}: indices must increase and stay under \
                         the accessor's count {count}"
                    ),
                ));
            }
            previous = Some(index);
            let start = sparse.values().offset() + k * element;
            for c in 0..components {
                values[index * components + c] =
                    decode(&value_bytes[start + c * size..], data_type);
            }
        }
    }
    Ok(values)
}
