//! A vertex's colour (glTF's `COLOR_0`): linear RGBA, multiplied into its
//! material's base colour. Held as the GPU holds it, four 16-bit unorms
//! (`R16G16B16A16_UNORM`, 8 bytes a vertex): exact for what exporters write
//! (Blender's normalized unsigned shorts, and gltfpack's and
//! glTF-Transform's normalized bytes, since 257 x 255 = 65535), and 1/65535
//! steps for floats, far under what 8-bit sRGB output shows even in the
//! darks, where 8-bit linear values would band.

use bytemuck::{Pod, Zeroable};
use glam::Vec4;

#[repr(transparent)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Pod, Zeroable)]
pub struct VertexColor(pub [u16; 4]);

impl VertexColor {
    /// What a mesh without colours has (every md5 mesh): the base colour
    /// as it is.
    pub const WHITE: VertexColor = VertexColor([u16::MAX; 4]);

    /// The nearest colour to `linear`, each component clamped to 0..1.
    pub fn from_linear(linear: Vec4) -> VertexColor {
        VertexColor(
            linear
                .to_array()
                .map(|c| (c.clamp(0.0, 1.0) * f32::from(u16::MAX)).round() as u16),
        )
    }

    /// Linear RGBA, as the vertex shader reads it.
    pub fn linear(self) -> Vec4 {
        Vec4::from_array(self.0.map(|c| f32::from(c) / f32::from(u16::MAX)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalized_bytes_and_shorts_are_kept_exactly() {
        for byte in 0..=255u8 {
            let color = VertexColor::from_linear(Vec4::splat(f32::from(byte) / 255.0));
            assert_eq!(color.0[0], u16::from(byte) * 257);
        }
        for short in [0u16, 1, 2, 1000, 32767, 65534, 65535] {
            let color = VertexColor::from_linear(Vec4::splat(f32::from(short) / 65535.0));
            assert_eq!(color.0[0], short);
        }
        assert_eq!(VertexColor::from_linear(Vec4::ONE), VertexColor::WHITE);
        assert_eq!(VertexColor::WHITE.linear(), Vec4::ONE);
    }
}
