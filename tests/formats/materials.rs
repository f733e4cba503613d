//! Doom 3 materials in a game folder: which image files a shader resolves
//! to (`MaterialLibrary`), and what decoding them gives (`decode_image`),
//! all on the CPU. The folder below is built once: a mesh under
//! `base/models/md5/`, `.mtr` files in the keyword and the stage syntax,
//! TGA images referenced with the wrong case, without an extension, with
//! the wrong extension, and one truncated.

use crate::common;
use common::{tga_bytes, write_file};

use std::fs;
use std::path::PathBuf;
use std::sync::OnceLock;

use image::{Rgba, RgbaImage};
use md5crowd::material::{
    decode_image, ImageSource, MapKind, MaterialImages, MaterialLibrary, MaterialMaps,
    ORIGIN_IMPLICIT, ORIGIN_MESH_FOLDER, ORIGIN_NONE,
};
use md5crowd::vfs::GameFile;

const A_MTR: &str = "\
// The guy: keyword syntax.
models/chars/guy/guy
{
    qer_editorimage models/chars/guy/guy_d.tga
    renderbump -size 512 512 -aa 2 models/chars/guy/guy_local.tga models/chars/guy/guy_hi.lwo
    diffusemap   models/chars/guy/Guy_D.tga
    bumpmap      addnormals(models/chars/guy/guy_local, heightmap(models/chars/guy/guy_h, 4))
    specularmap  models/chars/guy/guy_s.tga
}

material models/chars/helmet
{
    noshadows
    diffusemap \"models/chars/helmet/helmet_d.tga\"
    bumpmap heightmap(models/chars/helmet/helmet_h, 3)
    specularmap _black
}
";

const B_MTR: &str = "\
/* Gear: stage syntax,
   with a table and comments. */
table flicker { { 1, 0.5, 1, 0.8 } }

textures/gear/strap
{
    twosided
    {   // the colour
        blend diffusemap
        map textures/gear/strap_d
    }
    {
        blend bumpmap
        map textures/gear/strap_n
    }
    {
        blend add
        map textures/gear/strap_glow
        rgb flicker[time]
    }
}

textures/gear/broken
{
    { blend diffusemap map textures/gear/broken_d.tga }
}

textures/gear/bfg { diffusemap textures/gear/bfg }

textures/gear/bad {
    { blend specularmap map }
}
";

/// The line of `textures/gear/bad`'s stage in B_MTR.
const B_BAD_STAGE_LINE: usize = 31;

struct Game {
    base: PathBuf,
    mesh: PathBuf,
}

/// A recognisable 8x8 image: `colour`, with the top-left texel white.
fn picture(colour: [u8; 4]) -> RgbaImage {
    let mut image = RgbaImage::from_pixel(8, 8, Rgba(colour));
    image.put_pixel(0, 0, Rgba([255, 255, 255, 255]));
    image
}

fn game() -> &'static Game {
    static GAME: OnceLock<Game> = OnceLock::new();
    GAME.get_or_init(|| {
        let root = common::scratch_dir("material_game");
        let base = root.join("game/base");
        let mesh = base.join("models/md5/chars/guy/guy.md5mesh");
        write_file(
            &mesh,
            b"MD5Version 10\n// the resolver only needs the path\n",
        );
        write_file(&base.join("materials/a.mtr"), A_MTR.as_bytes());
        write_file(&base.join("materials/b.mtr"), B_MTR.as_bytes());
        let tga = |path: &str, colour| write_file(&base.join(path), &tga_bytes(picture(colour)));
        // Referenced as Guy_D.tga: the wrong case.
        tga("models/chars/guy/guy_d.tga", [200, 0, 0, 255]);
        // Referenced without an extension.
        tga("models/chars/guy/guy_local.tga", [128, 128, 255, 255]);
        // Referenced as .tga, on disk as .png.
        picture([10, 20, 30, 255])
            .save(base.join("models/chars/guy/guy_s.png"))
            .unwrap();
        // Referenced as models/chars/helmet/helmet_h: folders of another case.
        tga("Models/Chars/Helmet/helmet_h.tga", [90, 90, 90, 255]);
        tga("textures/gear/strap_d.tga", [0, 200, 0, 255]);
        // A TGA file with no extension at all.
        tga("textures/gear/strap_n", [128, 128, 255, 255]);
        // Truncated half-way through its pixels.
        let whole = tga_bytes(picture([1, 2, 3, 255]));
        write_file(
            &base.join("textures/gear/broken_d.tga"),
            &whole[..whole.len() / 2],
        );
        write_file(&base.join("textures/gear/bfg.dds"), b"DDS |not really");
        // No material of this name: the implicit material's image.
        tga("models/chars/implicit/cape.tga", [0, 0, 200, 255]);
        // Beside the mesh, for the fallbacks.
        tga("models/md5/chars/guy/loose.tga", [50, 50, 50, 255]);
        Game { base, mesh }
    })
}

fn library() -> &'static MaterialLibrary {
    static LIBRARY: OnceLock<MaterialLibrary> = OnceLock::new();
    LIBRARY.get_or_init(|| MaterialLibrary::for_mesh(&game().mesh, None))
}

fn file(path: &str) -> Option<ImageSource> {
    Some(ImageSource::File(GameFile::loose(game().base.join(path))))
}

fn resolve(shader: &str) -> MaterialImages {
    library().resolve(shader, &GameFile::loose(&game().mesh))
}

#[test]
fn the_base_folder_is_the_one_holding_materials() {
    let game = game();
    assert_eq!(
        MaterialLibrary::base_folder_for(&game.mesh).as_deref(),
        Some(game.base.as_path())
    );
    assert_eq!(library().base(), Some(game.base.as_path()));
    assert_eq!(library().len(), 6);
    assert!(library().contains("Models/Chars/Guy/GUY.tga"));
}

#[test]
fn without_materials_the_base_folder_is_above_models() {
    let root = common::scratch_dir("material_no_mtr");
    let mesh = root.join("mod/base/Models/md5/hero/hero.md5mesh");
    write_file(&mesh, b"");
    assert_eq!(
        MaterialLibrary::base_folder_for(&mesh),
        Some(root.join("mod/base"))
    );
    let loose = root.join("loose/hero.md5mesh");
    write_file(&loose, b"");
    assert_eq!(MaterialLibrary::base_folder_for(&loose), None);
}

#[test]
fn keyword_syntax_with_wrong_case_missing_and_swapped_extensions() {
    let guy = resolve("models/chars/guy/guy");
    assert_eq!(guy.diffuse, file("models/chars/guy/guy_d.tga"));
    assert_eq!(guy.normal, file("models/chars/guy/guy_local.tga"));
    assert_eq!(guy.specular, file("models/chars/guy/guy_s.png"));
    assert!(guy.origin.ends_with("a.mtr:2"), "{}", guy.origin);
    assert!(guy.warnings.is_empty(), "{:?}", guy.warnings);
    // Material names are case-insensitive and extensions are ignored.
    assert_eq!(resolve("Models\\Chars\\Guy\\GUY.tga"), guy);
}

#[test]
fn a_height_map_a_missing_image_and_a_builtin() {
    let helmet = resolve("models/chars/helmet");
    assert_eq!(helmet.diffuse, None);
    assert_eq!(helmet.warnings.len(), 1, "{:?}", helmet.warnings);
    assert!(helmet.warnings[0].contains("models/chars/helmet/helmet_d.tga"));
    assert!(helmet.warnings[0].contains("a.mtr:11"));
    assert_eq!(
        helmet.normal,
        Some(ImageSource::HeightMap {
            file: GameFile::loose(game().base.join("Models/Chars/Helmet/helmet_h.tga")),
            scale: 3.0
        })
    );
    // `_black` is the game's built-in image: the default, without a warning.
    assert_eq!(helmet.specular, None);

    // A uniform height map derives a flat normal map of its size.
    let normal = decode_image(helmet.normal.as_ref().unwrap(), MapKind::Normal, 4096);
    assert!(!normal.is_default && normal.warnings.is_empty());
    assert_eq!((normal.width, normal.height), (8, 8));
    assert_eq!(&normal.rgba[4 * 9..4 * 10], [128, 128, 255, 255]);
}

#[test]
fn stage_syntax_tables_and_comments() {
    let strap = resolve("textures/gear/strap");
    assert_eq!(strap.diffuse, file("textures/gear/strap_d.tga"));
    assert_eq!(strap.normal, file("textures/gear/strap_n"));
    assert_eq!(strap.specular, None);
    assert!(strap.origin.ends_with("b.mtr:5"), "{}", strap.origin);
    assert!(strap.warnings.is_empty(), "{:?}", strap.warnings);

    let bad = resolve("textures/gear/bad");
    assert_eq!(
        bad,
        MaterialImages {
            origin: bad.origin.clone(),
            ..MaterialImages::default()
        }
    );
}

#[test]
fn syntax_errors_are_warnings_with_file_and_line() {
    let warnings = &library().warnings;
    let at = format!("b.mtr:{B_BAD_STAGE_LINE}: ");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains(&at) && w.ends_with("expected an image after 'map'")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().all(|w| w.contains("b.mtr:")),
        "only b.mtr has errors: {warnings:?}"
    );
}

#[test]
fn a_dds_beside_the_reference_is_found_and_a_broken_one_is_a_warning() {
    let bfg = resolve("textures/gear/bfg");
    assert_eq!(bfg.diffuse, file("textures/gear/bfg.dds"));
    assert!(bfg.warnings.is_empty(), "{:?}", bfg.warnings);
    let diffuse = decode_image(bfg.diffuse.as_ref().unwrap(), MapKind::Diffuse, 4096);
    assert!(diffuse.is_default);
    assert_eq!(diffuse.warnings.len(), 1);
    assert!(
        diffuse.warnings[0].contains("bfg.dds") && diffuse.warnings[0].contains("DDS"),
        "{}",
        diffuse.warnings[0]
    );
}

#[test]
fn an_undefined_shader_is_an_implicit_material() {
    let cape = resolve("models/chars/implicit/Cape");
    assert_eq!(cape.diffuse, file("models/chars/implicit/cape.tga"));
    assert_eq!((cape.normal, cape.specular), (None, None));
    assert_eq!(cape.origin, ORIGIN_IMPLICIT);
}

#[test]
fn then_the_mesh_folder_then_grey() {
    let loose = resolve("some/engine/path/LOOSE");
    assert_eq!(loose.diffuse, file("models/md5/chars/guy/loose.tga"));
    assert_eq!(loose.origin, ORIGIN_MESH_FOLDER);

    let nothing = resolve("models/chars/nothing");
    assert_eq!(nothing.diffuse, None);
    assert_eq!(nothing.origin, ORIGIN_NONE);
    assert_eq!(nothing.warnings.len(), 1);
    assert!(nothing.warnings[0].contains("models/chars/nothing"));

    // No game folder at all: only the mesh's own folder.
    let root = common::scratch_dir("material_loose");
    let mesh = root.join("hero.md5mesh");
    write_file(&mesh, b"");
    fs::write(root.join("skin.tga"), tga_bytes(picture([7, 7, 7, 255]))).unwrap();
    let library = MaterialLibrary::for_mesh(&mesh, None);
    assert_eq!(library.base(), None);
    let skin = library.resolve("models/hero/skin", &GameFile::loose(&mesh));
    assert_eq!(
        skin.diffuse,
        Some(ImageSource::File(GameFile::loose(root.join("skin.tga"))))
    );
}

#[test]
fn textures_dir_overrides_the_base_folder() {
    let root = common::scratch_dir("material_override");
    let mesh = root.join("elsewhere/guy.md5mesh");
    write_file(&mesh, b"");
    let library = MaterialLibrary::for_mesh(&mesh, Some(&game().base));
    assert_eq!(library.base(), Some(game().base.as_path()));
    let guy = library.resolve("models/chars/guy/guy", &GameFile::loose(&mesh));
    assert_eq!(guy.diffuse, file("models/chars/guy/guy_d.tga"));

    // And it wins over the folder the mesh would find itself.
    let empty_base = root.join("empty_base");
    fs::create_dir_all(empty_base.join("materials")).unwrap();
    let library = MaterialLibrary::for_mesh(&game().mesh, Some(&empty_base));
    assert!(library.is_empty());
    assert_eq!(
        library
            .resolve("models/chars/guy/guy", &GameFile::loose(&game().mesh))
            .origin,
        ORIGIN_NONE
    );
}

#[test]
fn images_decode_to_their_pixels() {
    let guy = resolve("models/chars/guy/guy");
    let diffuse = decode_image(guy.diffuse.as_ref().unwrap(), MapKind::Diffuse, 4096);
    assert!(!diffuse.is_default && diffuse.warnings.is_empty());
    assert_eq!((diffuse.width, diffuse.height), (8, 8));
    assert_eq!(&diffuse.rgba[..8], [255, 255, 255, 255, 200, 0, 0, 255]);
    // The swapped-extension PNG and the extensionless TGA decode too.
    let specular = decode_image(guy.specular.as_ref().unwrap(), MapKind::Specular, 4096);
    assert_eq!(&specular.rgba[4..8], [10, 20, 30, 255]);
    let strap = resolve("textures/gear/strap");
    let normal = decode_image(strap.normal.as_ref().unwrap(), MapKind::Normal, 4096);
    assert!(!normal.is_default, "{:?}", normal.warnings);
    assert_eq!(&normal.rgba[4..8], [128, 128, 255, 255]);
}

#[test]
fn a_truncated_image_is_a_warning_and_the_default() {
    let broken = resolve("textures/gear/broken");
    let source = broken.diffuse.expect("the file exists");
    assert_eq!(source, file("textures/gear/broken_d.tga").unwrap());
    let diffuse = decode_image(&source, MapKind::Diffuse, 4096);
    assert!(diffuse.is_default);
    assert_eq!((diffuse.width, diffuse.height), (1, 1));
    assert_eq!(diffuse.rgba, [128, 128, 128, 255]);
    assert_eq!(diffuse.warnings.len(), 1, "{:?}", diffuse.warnings);
    assert!(
        diffuse.warnings[0].contains("broken_d.tga"),
        "{}",
        diffuse.warnings[0]
    );
    // The same file as a normal map stands in as a flat one.
    let normal = decode_image(&source, MapKind::Normal, 4096);
    assert_eq!(normal.rgba, [128, 128, 255, 255]);
}

#[test]
fn an_image_larger_than_the_device_allows_is_scaled_down() {
    let guy = resolve("models/chars/guy/guy");
    let diffuse = decode_image(guy.diffuse.as_ref().unwrap(), MapKind::Diffuse, 4);
    assert!(!diffuse.is_default);
    assert_eq!((diffuse.width, diffuse.height), (4, 4));
    assert_eq!(diffuse.rgba.len(), 4 * 4 * 4);
    assert_eq!(diffuse.warnings.len(), 1);
    assert!(diffuse.warnings[0].contains("guy_d.tga"));
}

#[test]
fn materials_upload_with_their_formats_under_validation() {
    use md5crowd::gpu::context::Validation;
    use md5crowd::gpu::guard::Destroy;
    use md5crowd::gpu::texture::{format_for, MaterialTextures};
    use md5crowd::gpu::{Context, ContextDesc};

    if !common::vulkan_or_skip() {
        return;
    }
    let ctx = Context::new(&ContextDesc {
        validation: Validation::Required,
        gpu_index: None,
        window: None,
    })
    .unwrap();
    let mut textures = MaterialTextures::default();
    for (shader, diffuse_side) in [
        ("models/chars/guy/guy", 8),
        ("models/chars/helmet", 1),
        ("textures/gear/broken", 1), // truncated: the grey default
    ] {
        let material = textures
            .add(&ctx, &MaterialMaps::read(&resolve(shader), &mut Vec::new()))
            .unwrap();
        for kind in MapKind::ALL {
            assert_eq!(
                textures.map(material, kind).format,
                format_for(kind),
                "{shader} {kind}"
            );
        }
        let diffuse = textures.map(material, MapKind::Diffuse);
        assert_eq!(diffuse.extent.width, diffuse_side, "{shader}");
        assert_eq!(diffuse.mip_levels, 32 - diffuse_side.leading_zeros());
    }
    // The helmet and the broken image share the grey default, and every
    // material without a normal or specular map (and every md5 material's
    // emissive and occlusion) shares those defaults.
    assert!(
        textures.images.len() < MapKind::ALL.len() * textures.materials.len(),
        "{} images for {} materials",
        textures.images.len(),
        textures.materials.len()
    );
    textures.destroy(&ctx);
    let counts = ctx.message_counts.clone();
    drop(ctx);
    assert_eq!((counts.warnings(), counts.errors()), (0, 0));
}
