//! glTF files about materials, written as Blender's exporter writes them:
//! one mesh object per material, POSITION / NORMAL / TEXCOORD_0 with
//! unsigned short indices, factors in `pbrMetallicRoughness`, material
//! extensions in `extensionsUsed`; COLOR_0 as Blender (normalized unsigned
//! shorts), gltfpack and glTF-Transform (normalized bytes) write it, or as
//! floats.

use glam::{Vec2, Vec3, Vec4};

use super::gltf_write::{GltfBuilder, Layout, Material, Node, Primitive, Type};

/// Spheres per side of [`sphere_grid`]: metallic 0..1 by roughness 0..1.
pub const GRID: usize = 5;
/// Each sphere's radius and the distance between centres, metres.
pub const SPHERE_RADIUS: f32 = 0.1;
pub const SPHERE_SPACING: f32 = 0.25;
/// A sphere's base colour (linear, as baseColorFactor holds it).
pub const SPHERE_BASE_COLOR: [f32; 4] = [0.8, 0.35, 0.1, 1.0];

/// A UV sphere of `radius` around the origin, its poles on glTF's Y (as
/// Blender's UV sphere is, once exported Y up): positions, normals, uvs,
/// counter-clockwise triangles.
pub fn uv_sphere(
    radius: f32,
    segments: u16,
    rings: u16,
) -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec2>, Vec<u16>) {
    let (mut positions, mut normals, mut uvs) = (Vec::new(), Vec::new(), Vec::new());
    for ring in 0..=rings {
        let v = f32::from(ring) / f32::from(rings);
        let polar = v * std::f32::consts::PI;
        for segment in 0..=segments {
            let u = f32::from(segment) / f32::from(segments);
            let azimuth = u * std::f32::consts::TAU;
            let normal = Vec3::new(
                polar.sin() * azimuth.sin(),
                polar.cos(),
                polar.sin() * azimuth.cos(),
            );
            positions.push(normal * radius);
            normals.push(normal);
            uvs.push(Vec2::new(u, v));
        }
    }
    let row = segments + 1;
    let mut triangles = Vec::new();
    for ring in 0..rings {
        for segment in 0..segments {
            let a = ring * row + segment;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            triangles.extend([a, c, b, b, c, d]);
        }
    }
    (positions, normals, uvs, triangles)
}

/// The material name of the sphere at (`metallic`, `roughness`) of the grid.
pub fn sphere_material_name(column: usize, row: usize) -> String {
    format!("metal_{column}_rough_{row}")
}

/// The metallic and roughness of the sphere in `column` and `row`.
pub fn sphere_factors(column: usize, row: usize) -> (f32, f32) {
    let step = 1.0 / (GRID - 1) as f32;
    (column as f32 * step, row as f32 * step)
}

/// A GRID x GRID wall of spheres facing glTF's +Z: metallic grows along
/// +X, roughness along +Y, one material each. The .glb's bytes.
pub fn sphere_grid() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let (positions, normals, uvs, triangles) = uv_sphere(SPHERE_RADIUS, 48, 24);
    let position = b.positions(&positions);
    let normal = b.vec3s(&normals);
    let uv = b.vec2s(&uvs);
    let indices = b.indices_u16(&triangles);
    let mut nodes = Vec::new();
    for row in 0..GRID {
        for column in 0..GRID {
            let (metallic, roughness) = sphere_factors(column, row);
            let name = sphere_material_name(column, row);
            let material = b.material(Material {
                name: Some(name.clone()),
                base_color_factor: Some(SPHERE_BASE_COLOR),
                metallic_factor: Some(metallic),
                roughness_factor: Some(roughness),
                ..Material::default()
            });
            let primitive = Primitive {
                indices: Some(indices),
                material: Some(material),
                ..Primitive::default()
            }
            .attribute("POSITION", position)
            .attribute("NORMAL", normal)
            .attribute("TEXCOORD_0", uv);
            let mesh = b.mesh(&name, &[primitive], None);
            let half = (GRID - 1) as f32 / 2.0;
            nodes.push(b.node(Node {
                translation: Some(Vec3::new(
                    (column as f32 - half) * SPHERE_SPACING,
                    (row as f32 - half) * SPHERE_SPACING + 1.0,
                    0.0,
                )),
                mesh: Some(mesh),
                ..Node::named(&name)
            }));
        }
    }
    b.scene("Scene", &nodes);
    b.to_glb()
}

/// Each panel of [`panels`]: a 0.4 m square, side by side along glTF's X.
pub const PANEL_SIZE: f32 = 0.4;
/// An emissive panel's colour and strength (their product under 1: the
/// attachment clamps).
pub const EMISSIVE_FACTOR: [f32; 3] = [0.4, 0.2, 0.1];
pub const EMISSIVE_STRENGTH: f32 = 2.0;
/// The unlit panel's base colour.
pub const UNLIT_COLOR: [f32; 4] = [0.2, 0.6, 0.9, 1.0];

/// The panels of [`panels`], left to right, by material name.
pub const PANELS: [&str; 5] = ["mask", "away", "away_double_sided", "emissive", "unlit"];

/// A row of square panels facing glTF's +Z (the viewer) at z = 0, one per
/// entry of [`PANELS`]:
/// - `mask`: white, a 4x4 checker of alpha 0 and 1, MASK at 0.5;
/// - `away`: grey and one-sided, facing -Z (seen from behind);
/// - `away_double_sided`: the same, doubleSided;
/// - `emissive`: black, emitting [`EMISSIVE_FACTOR`] at
///   [`EMISSIVE_STRENGTH`] (KHR_materials_emissive_strength);
/// - `unlit`: [`UNLIT_COLOR`], KHR_materials_unlit.
pub fn panels() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let texture = checker_texture(&mut b, (255, 0));
    let grey = [0.5, 0.5, 0.5, 1.0];
    let materials = [
        Material {
            base_color_texture: Some(texture),
            alpha_mode: Some("MASK"),
            alpha_cutoff: Some(0.5),
            ..Material::default()
        },
        Material {
            base_color_factor: Some(grey),
            ..Material::default()
        },
        Material {
            base_color_factor: Some(grey),
            double_sided: true,
            ..Material::default()
        },
        Material {
            base_color_factor: Some([0.0, 0.0, 0.0, 1.0]),
            metallic_factor: Some(0.0),
            emissive_factor: Some(EMISSIVE_FACTOR),
            emissive_strength: Some(EMISSIVE_STRENGTH),
            ..Material::default()
        },
        Material {
            base_color_factor: Some(UNLIT_COLOR),
            unlit: true,
            ..Material::default()
        },
    ];
    let mut nodes = Vec::new();
    for (i, (name, material)) in PANELS.iter().zip(materials).enumerate() {
        let material = b.material(Material {
            name: Some((*name).to_owned()),
            ..material
        });
        let x = (i as f32 - (PANELS.len() - 1) as f32 / 2.0) * PANEL_SIZE * 1.25;
        let square = Square {
            size: PANEL_SIZE,
            z: 0.0,
            away: name.starts_with("away"),
        };
        nodes.push(square.node(&mut b, name, material, Vec3::new(x, 1.0, 0.0)));
    }
    b.scene("Scene", &nodes);
    b.to_glb()
}

/// Cells per side of the checker that [`panels`]' `mask` and
/// [`checker_plane`] carry: cell (x, y), counted from the top left of the
/// texture, is cut where x + y is odd.
pub const CHECKER_CELLS: u32 = 4;

/// White, a [`CHECKER_CELLS`]-square checker of alpha 0 and 1: the texture's
/// index.
fn checker_texture(b: &mut GltfBuilder, (kept, cut): (u8, u8)) -> usize {
    let checker = image::RgbaImage::from_fn(CHECKER_CELLS, CHECKER_CELLS, |x, y| {
        image::Rgba([255, 255, 255, if (x + y) % 2 == 0 { kept } else { cut }])
    });
    let image = b.image_in_buffer(
        "checker",
        &super::gltf_write::png_bytes(&checker),
        "image/png",
    );
    b.texture(image, None)
}

/// [`checker_plane`]'s side and the height of its centre, metres.
pub const CHECKER_PLANE_SIZE: f32 = 1.0;
pub const CHECKER_PLANE_HEIGHT: f32 = 1.0;

/// How [`checker_plane`] is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckerPlane {
    /// MASK at cutoff 0.5 over alphas 1 and 0.
    Mask,
    /// MASK at cutoff 0.3 over alphas 0.4 and 0.2: kept and cut as
    /// [`CheckerPlane::Mask`]'s cells are, where a cut at 0.5 would cut all.
    MaskAtLowCutoff,
    /// The mode left out, as Blender does for OPAQUE: alpha is ignored.
    Opaque,
}

/// A standing square facing glTF's +Z, [`CHECKER_PLANE_SIZE`] on a side and
/// lifted off the ground (its centre at [`CHECKER_PLANE_HEIGHT`]), white
/// with the checker alpha of [`panels`]' `mask`, as a character's one
/// part, written as `plane` says.
pub fn checker_plane(plane: CheckerPlane) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let (alphas, alpha_mode, alpha_cutoff) = match plane {
        CheckerPlane::Mask => ((255, 0), Some("MASK"), Some(0.5)),
        CheckerPlane::MaskAtLowCutoff => ((102, 51), Some("MASK"), Some(0.3)),
        CheckerPlane::Opaque => ((255, 0), None, None),
    };
    let texture = checker_texture(&mut b, alphas);
    let material = b.material(Material {
        name: Some("checker".to_owned()),
        base_color_texture: Some(texture),
        alpha_mode,
        alpha_cutoff,
        ..Material::default()
    });
    let square = Square {
        size: CHECKER_PLANE_SIZE,
        z: 0.0,
        away: false,
    };
    let translation = Vec3::new(0.0, CHECKER_PLANE_HEIGHT, 0.0);
    let node = square.node(&mut b, "checker", material, translation);
    b.scene("Scene", &[node]);
    b.to_glb()
}

/// [`eye_decal`]'s skin and decal colours (linear) and the decal's alpha.
pub const SKIN_COLOR: [f32; 4] = [0.8, 0.5, 0.4, 1.0];
pub const DECAL_COLOR: [f32; 4] = [0.1, 0.2, 0.9, 0.5];

/// A face and an eye decal over it, as a character's eye is made: a quad of
/// skin and, a centimetre in front of it, a smaller quad of BLEND at alpha
/// 0.5, both unlit so that the picture holds their colours alone.
pub fn eye_decal() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let mut nodes = Vec::new();
    let parts = [
        ("skin", SKIN_COLOR, None, PANEL_SIZE, 0.0),
        ("decal", DECAL_COLOR, Some("BLEND"), PANEL_SIZE / 2.0, 0.01),
    ];
    for (name, color, alpha_mode, size, z) in parts {
        let material = b.material(Material {
            name: Some(name.to_owned()),
            base_color_factor: Some(color),
            alpha_mode,
            unlit: true,
            ..Material::default()
        });
        let square = Square {
            size,
            z,
            away: false,
        };
        nodes.push(square.node(&mut b, name, material, Vec3::new(0.0, 1.0, 0.0)));
    }
    b.scene("Scene", &nodes);
    b.to_glb()
}

/// The two BLEND layers of [`overlapping_decals`]: name, colour (alpha
/// last), side, x offset and distance in front of the skin (metres).
pub const OVERLAPPING_DECALS: [(&str, [f32; 4], f32, f32, f32); 2] = [
    ("red_decal", [0.9, 0.1, 0.1, 0.5], 0.16, -0.05, 0.01),
    ("green_decal", [0.1, 0.8, 0.2, 0.6], 0.16, 0.05, 0.03),
];

/// A quad of skin with two BLEND decals over it that overlap in the
/// middle, the green one nearer, all unlit; `reversed` writes the decals in
/// the other order (file order is the order a character's meshes draw in).
pub fn overlapping_decals(reversed: bool) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let skin = b.material(Material {
        name: Some("skin".to_owned()),
        base_color_factor: Some(SKIN_COLOR),
        unlit: true,
        ..Material::default()
    });
    let square = Square {
        size: PANEL_SIZE,
        z: 0.0,
        away: false,
    };
    let mut nodes = vec![square.node(&mut b, "skin", skin, Vec3::new(0.0, 1.0, 0.0))];
    let mut decals = OVERLAPPING_DECALS.to_vec();
    if reversed {
        decals.reverse();
    }
    for (name, color, size, x, z) in decals {
        let material = b.material(Material {
            name: Some(name.to_owned()),
            base_color_factor: Some(color),
            alpha_mode: Some("BLEND"),
            unlit: true,
            ..Material::default()
        });
        let square = Square {
            size,
            z,
            away: false,
        };
        nodes.push(square.node(&mut b, name, material, Vec3::new(x, 1.0, 0.0)));
    }
    b.scene("Scene", &nodes);
    b.to_glb()
}

/// A square quad in glTF's XY plane.
struct Square {
    /// Its side, metres.
    size: f32,
    /// Its plane's z.
    z: f32,
    /// Facing -Z (away from a viewer on +Z) instead of +Z.
    away: bool,
}

impl Square {
    /// The square as mesh `name` drawn with `material` (texture
    /// coordinates over it, v down), in a node at `translation`; the node.
    fn node(&self, b: &mut GltfBuilder, name: &str, material: usize, translation: Vec3) -> usize {
        let half = self.size / 2.0;
        let facing = if self.away { -1.0 } else { 1.0 };
        let corners = [(-half, -half), (half, -half), (half, half), (-half, half)]
            .map(|(x, y)| Vec3::new(x * facing, y, self.z));
        let position = b.positions(&corners);
        let normal = b.vec3s(&[Vec3::new(0.0, 0.0, facing); 4]);
        let uv = b.vec2s(&[
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(0.0, 0.0),
        ]);
        let indices = b.indices_u16(&[0, 1, 2, 0, 2, 3]);
        let primitive = Primitive {
            indices: Some(indices),
            material: Some(material),
            ..Primitive::default()
        }
        .attribute("POSITION", position)
        .attribute("NORMAL", normal)
        .attribute("TEXCOORD_0", uv);
        let mesh = b.mesh(name, &[primitive], None);
        b.node(Node {
            translation: Some(translation),
            mesh: Some(mesh),
            ..Node::named(name)
        })
    }
}

/// How [`painted_panels`] writes COLOR_0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorEncoding {
    /// No COLOR_0.
    Absent,
    FloatVec3,
    FloatVec4,
    /// Normalized UNSIGNED_BYTE VEC4, as gltfpack and glTF-Transform's
    /// quantize write colours.
    Unorm8Vec4,
    /// Normalized UNSIGNED_SHORT VEC4, as Blender writes colours.
    Unorm16Vec4,
}

impl ColorEncoding {
    pub const ALL: [ColorEncoding; 5] = [
        ColorEncoding::Absent,
        ColorEncoding::FloatVec3,
        ColorEncoding::FloatVec4,
        ColorEncoding::Unorm8Vec4,
        ColorEncoding::Unorm16Vec4,
    ];

    /// `linear` as a reader must decode it from this encoding.
    pub fn decoded(self, linear: [f32; 4]) -> Vec4 {
        let quantized = |levels: f32| Vec4::from(linear.map(|c| (c * levels).round() / levels));
        match self {
            ColorEncoding::Absent => Vec4::ONE,
            ColorEncoding::FloatVec3 => Vec4::from(linear).truncate().extend(1.0),
            ColorEncoding::FloatVec4 => Vec4::from(linear),
            ColorEncoding::Unorm8Vec4 => quantized(255.0),
            ColorEncoding::Unorm16Vec4 => quantized(65535.0),
        }
    }
}

/// The vertex colours of [`painted_panels`]' quarters (linear RGBA), in
/// the order of [`quarter_uv`]; the alphas show on the BLEND panel only.
pub const PAINT: [[f32; 4]; 4] = [
    [0.9, 0.15, 0.1, 1.0],
    [0.1, 0.8, 0.25, 0.6],
    [0.2, 0.3, 0.95, 0.3],
    [0.95, 0.85, 0.05, 0.8],
];

/// The painted panels, left to right, by material name, and their base
/// colour factors.
pub const PAINTED: [&str; 3] = ["painted", "painted_unlit", "painted_blend"];
pub const PAINTED_FACTOR: [f32; 4] = [0.9, 0.7, 0.8, 1.0];
pub const PAINTED_UNLIT_FACTOR: [f32; 4] = [0.7, 0.9, 0.8, 1.0];
/// The metallic-roughness panel's factors.
pub const PAINTED_METALLIC: f32 = 0.0;
pub const PAINTED_ROUGHNESS: f32 = 0.5;

/// The texture coordinates of quarter `q`'s centre (v down, so the first
/// two quarters are the panel's lower half), as [`painted_panels`] lays
/// them.
pub fn quarter_uv(q: usize) -> (f32, f32) {
    let (column, row) = (q % 2, q / 2);
    (0.25 + 0.5 * column as f32, 0.75 - 0.5 * row as f32)
}

/// Three [`PANEL_SIZE`] squares facing glTF's +Z, one per entry of
/// [`PAINTED`], each painted in four quarters with the vertex colours
/// [`PAINT`] written as `encoding` says:
/// - `painted`: metallic-roughness, [`PAINTED_FACTOR`];
/// - `painted_unlit`: KHR_materials_unlit, [`PAINTED_UNLIT_FACTOR`];
/// - `painted_blend`: the same unlit, BLEND, so the vertex alpha shows.
///
/// As Blender exports face-corner colours, each quarter has its own four
/// vertices: the copies along the seams share position, normal and uv and
/// differ only in colour.
pub fn painted_panels(encoding: ColorEncoding) -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let unlit = |name: &str, alpha_mode| Material {
        name: Some(name.to_owned()),
        base_color_factor: Some(PAINTED_UNLIT_FACTOR),
        alpha_mode,
        unlit: true,
        ..Material::default()
    };
    let materials = [
        Material {
            name: Some(PAINTED[0].to_owned()),
            base_color_factor: Some(PAINTED_FACTOR),
            metallic_factor: Some(PAINTED_METALLIC),
            roughness_factor: Some(PAINTED_ROUGHNESS),
            ..Material::default()
        },
        unlit(PAINTED[1], None),
        unlit(PAINTED[2], Some("BLEND")),
    ];
    let half = PANEL_SIZE / 2.0;
    let (mut positions, mut uvs, mut colors, mut triangles) = (vec![], vec![], vec![], vec![]);
    for (q, paint) in PAINT.iter().enumerate() {
        let (u, v) = quarter_uv(q);
        let first = positions.len() as u16;
        for (du, dv) in [(-0.25, 0.25), (0.25, 0.25), (0.25, -0.25), (-0.25, -0.25)] {
            let uv = Vec2::new(u + du, v + dv);
            positions.push(Vec3::new(
                uv.x * PANEL_SIZE - half,
                (1.0 - uv.y) * PANEL_SIZE - half,
                0.0,
            ));
            uvs.push(uv);
            colors.push(*paint);
        }
        triangles.extend([0, 1, 2, 0, 2, 3].map(|i| first + i));
    }
    let position = b.positions(&positions);
    let normal = b.vec3s(&vec![Vec3::Z; positions.len()]);
    let uv = b.vec2s(&uvs);
    let indices = b.indices_u16(&triangles);
    let color = match encoding {
        ColorEncoding::Absent => None,
        ColorEncoding::FloatVec3 => {
            let rgb: Vec<f32> = colors.iter().flat_map(|c| [c[0], c[1], c[2]]).collect();
            Some(b.accessor(&rgb, Type::Vec3, Layout::VERTEX))
        }
        ColorEncoding::FloatVec4 => {
            Some(b.accessor(colors.as_flattened(), Type::Vec4, Layout::VERTEX))
        }
        ColorEncoding::Unorm8Vec4 => {
            let bytes: Vec<u8> = colors
                .as_flattened()
                .iter()
                .map(|c| (c * 255.0).round() as u8)
                .collect();
            Some(b.accessor(&bytes, Type::Vec4, Layout::NORMALIZED))
        }
        ColorEncoding::Unorm16Vec4 => {
            let shorts: Vec<u16> = colors
                .as_flattened()
                .iter()
                .map(|c| (c * 65535.0).round() as u16)
                .collect();
            Some(b.accessor(&shorts, Type::Vec4, Layout::NORMALIZED))
        }
    };
    let mut nodes = Vec::new();
    for (i, material) in materials.into_iter().enumerate() {
        let name = PAINTED[i];
        let material = b.material(material);
        let mut primitive = Primitive {
            indices: Some(indices),
            material: Some(material),
            ..Primitive::default()
        }
        .attribute("POSITION", position)
        .attribute("NORMAL", normal)
        .attribute("TEXCOORD_0", uv);
        if let Some(color) = color {
            primitive = primitive.attribute("COLOR_0", color);
        }
        let mesh = b.mesh(name, &[primitive], None);
        let x = (i as f32 - (PAINTED.len() - 1) as f32 / 2.0) * PANEL_SIZE * 1.25;
        nodes.push(b.node(Node {
            translation: Some(Vec3::new(x, 1.0, 0.0)),
            mesh: Some(mesh),
            ..Node::named(name)
        }));
    }
    b.scene("Scene", &nodes);
    b.to_glb()
}

/// [`cutoff_panel`]'s `alphaCutoff`: not 0.5, where a remap of the
/// texture's alpha to cut at 0.5 would be the identity.
pub const CUTOFF: f32 = 0.3;
/// [`cutoff_panel`]'s texture alphas, one column each, left to right: they
/// step across the cutoff alone (0.25 | 0.35) and across it times
/// [`UPPER_VERTEX_ALPHA`] (0.55 | 0.65).
pub const CUTOFF_COLUMN_ALPHAS: [f32; 8] = [0.1, 0.25, 0.35, 0.5, 0.55, 0.65, 0.8, 1.0];
/// The vertex alpha (COLOR_0) of [`cutoff_panel`]'s upper half; the lower
/// half's is 1.
pub const UPPER_VERTEX_ALPHA: f32 = 0.5;

/// A [`PANEL_SIZE`] square facing glTF's +Z, white, unlit, MASK at
/// [`CUTOFF`], its texture's alpha stepping through
/// [`CUTOFF_COLUMN_ALPHAS`] (one texel a column, one row). Its upper half
/// (v 0..0.5, v down) is painted alpha [`UPPER_VERTEX_ALPHA`] and its lower
/// half alpha 1, in COLOR_0 as Blender writes it (normalized unsigned
/// shorts, each half its own four vertices, as face-corner colours are
/// exported). The glTF specification keeps a fragment where texture alpha
/// x vertex alpha >= the cutoff.
pub fn cutoff_panel() -> Vec<u8> {
    let mut b = GltfBuilder::new();
    let columns = CUTOFF_COLUMN_ALPHAS.len() as u32;
    let steps = image::RgbaImage::from_fn(columns, 1, |x, _| {
        let alpha = (CUTOFF_COLUMN_ALPHAS[x as usize] * 255.0).round() as u8;
        image::Rgba([255, 255, 255, alpha])
    });
    let png = super::gltf_write::png_bytes(&steps);
    let image = b.image_in_buffer("alpha_steps", &png, "image/png");
    let texture = b.texture(image, None);
    let material = b.material(Material {
        name: Some("cutoff".to_owned()),
        base_color_texture: Some(texture),
        alpha_mode: Some("MASK"),
        alpha_cutoff: Some(CUTOFF),
        unlit: true,
        ..Material::default()
    });
    let half = PANEL_SIZE / 2.0;
    let (mut positions, mut uvs, mut colors, mut triangles) = (vec![], vec![], vec![], vec![]);
    for (v0, vertex_alpha) in [(0.0f32, UPPER_VERTEX_ALPHA), (0.5, 1.0)] {
        let first = positions.len() as u16;
        for (u, v) in [(0.0, v0 + 0.5), (1.0, v0 + 0.5), (1.0, v0), (0.0, v0)] {
            positions.push(Vec3::new(
                u * PANEL_SIZE - half,
                (1.0 - v) * PANEL_SIZE - half,
                0.0,
            ));
            uvs.push(Vec2::new(u, v));
            let short = (vertex_alpha * 65535.0).round() as u16;
            colors.extend([u16::MAX, u16::MAX, u16::MAX, short]);
        }
        triangles.extend([0, 1, 2, 0, 2, 3].map(|i| first + i));
    }
    let position = b.positions(&positions);
    let normal = b.vec3s(&vec![Vec3::Z; positions.len()]);
    let uv = b.vec2s(&uvs);
    let color = b.accessor(&colors, Type::Vec4, Layout::NORMALIZED);
    let indices = b.indices_u16(&triangles);
    let primitive = Primitive {
        indices: Some(indices),
        material: Some(material),
        ..Primitive::default()
    }
    .attribute("POSITION", position)
    .attribute("NORMAL", normal)
    .attribute("TEXCOORD_0", uv)
    .attribute("COLOR_0", color);
    let mesh = b.mesh("cutoff", &[primitive], None);
    let node = b.node(Node {
        translation: Some(Vec3::new(0.0, 1.0, 0.0)),
        mesh: Some(mesh),
        ..Node::named("cutoff")
    });
    b.scene("Scene", &[node]);
    b.to_glb()
}
