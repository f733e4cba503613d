//! The md5 parsers: one small snippet per grammar feature, one per validation
//! rule (each pinning the error's line, column and wording), the writer round
//! trip, and the skeleton compatibility check.

use std::path::Path;

use glam::{Quat, Vec2, Vec3};
use md5crowd::bounds::Bounds;
use md5crowd::md5::{
    check_anim_fits_mesh, parse_anim, parse_mesh, quat_from_xyz, read_anim_file, read_mesh_file,
    write_anim, write_mesh, BaseJoint, HierarchyJoint, Location, Md5Anim, Md5Error, Md5Mesh, Mesh,
    MeshJoint, Vert, Weight,
};

/// Line numbers in the error tests below refer to this layout.
const MESH: &str = "\
MD5Version 10
commandline \"test\"

numJoints 2
numMeshes 1

joints {
\t\"origin\"\t-1 ( 0 0 0 ) ( 0 0 0 )
\t\"body\"\t0 ( 1 2 3 ) ( 0.5 0 0 )
}

mesh {
\tshader \"skin\"
\tnumverts 3
\tvert 0 ( 0 0 ) 0 1
\tvert 1 ( 1 0 ) 1 1
\tvert 2 ( 0 1 ) 2 1
\tnumtris 1
\ttri 0 0 2 1
\tnumweights 3
\tweight 0 0 1 ( 0 0 0 )
\tweight 1 1 0.5 ( 1 0 0 )
\tweight 2 1 1 ( 0 1 0 )
}
";

/// Line numbers in the error tests below refer to this layout.
const ANIM: &str = "\
MD5Version 10
commandline \"test\"

numFrames 2
numJoints 2
frameRate 24
numAnimatedComponents 4

hierarchy {
\t\"origin\"\t-1 0 0
\t\"body\"\t0 57 0
}

bounds {
\t( -1 -1 -1 ) ( 1 1 1 )
\t( -2 -2 -2 ) ( 2 2 2 )
}

baseframe {
\t( 0 0 0 ) ( 0 0 0 )
\t( 1 2 3 ) ( 0.5 0 0 )
}

frame 0 {
\t 1 2 3 0.25
}

frame 1 {
\t 1.5 2 3 -0.25
}
";

fn mesh(text: &str) -> Md5Mesh {
    parse_mesh(text, "test.md5mesh").unwrap_or_else(|e| panic!("{e}"))
}

fn anim(text: &str) -> Md5Anim {
    parse_anim(text, "test.md5anim").unwrap_or_else(|e| panic!("{e}"))
}

/// `text` with `from` (which must occur) replaced by `to`.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "{from:?} not in the snippet");
    text.replacen(from, to, 1)
}

#[track_caller]
fn assert_error(
    result: Result<impl std::fmt::Debug, Md5Error>,
    line: u32,
    column: u32,
    says: &str,
) {
    let error = result.expect_err("the text is invalid");
    assert_eq!(
        error.location,
        Some(Location { line, column }),
        "wrong place for: {error}"
    );
    assert!(
        error.message.contains(says),
        "{error}\ndoes not say: {says}"
    );
}

#[track_caller]
fn mesh_error(text: &str, line: u32, column: u32, says: &str) {
    let result = parse_mesh(text, "test.md5mesh");
    if let Err(error) = &result {
        assert_eq!(error.file, "test.md5mesh");
        assert!(error
            .to_string()
            .starts_with(&format!("test.md5mesh:{line}:{column}: ")));
    }
    assert_error(result, line, column, says);
}

#[track_caller]
fn anim_error(text: &str, line: u32, column: u32, says: &str) {
    assert_error(parse_anim(text, "test.md5anim"), line, column, says);
}

// ---------------------------------------------------------------- grammar

#[test]
fn mesh_snippet_parses_to_its_values() {
    let body = quat_from_xyz(0.5, 0.0, 0.0);
    let weight = |joint, bias, position| Weight {
        joint,
        bias,
        position,
    };
    let vert = |u, v, start_weight| Vert {
        uv: Vec2::new(u, v),
        start_weight,
        weight_count: 1,
    };
    assert_eq!(
        mesh(MESH),
        Md5Mesh {
            commandline: "test".into(),
            joints: vec![
                MeshJoint {
                    name: "origin".into(),
                    parent: None,
                    position: Vec3::ZERO,
                    orientation: Quat::from_xyzw(0.0, 0.0, 0.0, -1.0),
                },
                MeshJoint {
                    name: "body".into(),
                    parent: Some(0),
                    position: Vec3::new(1.0, 2.0, 3.0),
                    orientation: body,
                },
            ],
            meshes: vec![Mesh {
                shader: "skin".into(),
                verts: vec![vert(0.0, 0.0, 0), vert(1.0, 0.0, 1), vert(0.0, 1.0, 2)],
                tris: vec![[0, 2, 1]],
                weights: vec![
                    weight(0, 1.0, Vec3::ZERO),
                    weight(1, 0.5, Vec3::X),
                    weight(1, 1.0, Vec3::Y),
                ],
            }],
        }
    );
}

#[test]
fn anim_snippet_parses_to_its_values() {
    let parsed = anim(ANIM);
    assert_eq!(parsed.frame_rate, 24.0);
    assert_eq!(parsed.num_animated_components, 4);
    assert_eq!(
        parsed.hierarchy[1],
        HierarchyJoint {
            name: "body".into(),
            parent: Some(0),
            flags: 57,
            start_index: 0,
        }
    );
    assert_eq!(parsed.hierarchy[1].animated_component_count(), 4);
    assert_eq!(
        parsed.bounds[1],
        Bounds {
            min: Vec3::splat(-2.0),
            max: Vec3::splat(2.0),
        }
    );
    assert_eq!(
        parsed.baseframe[1],
        BaseJoint {
            position: Vec3::new(1.0, 2.0, 3.0),
            orientation: quat_from_xyz(0.5, 0.0, 0.0),
        }
    );
    assert_eq!(
        parsed.frames,
        [[1.0, 2.0, 3.0, 0.25], [1.5, 2.0, 3.0, -0.25]]
    );
}

#[test]
fn comments_anywhere_including_the_version_line() {
    let commented = MESH
        .replace(
            "MD5Version 10\n",
            "// exported by hand\nMD5Version 10 // version\n",
        )
        .replace(
            "numJoints 2\n",
            "numJoints 2// no space before the comment\n",
        )
        .replace("\tvert 1 ", "\t// a whole-line comment\n\tvert 1 ")
        .replace(") ( 0.5 0 0 )\n", ") ( 0.5 0 0 )\t\t// origin\n")
        .replace("}\n\nmesh {", "} //\n\nmesh { // meshes: body");
    assert_eq!(mesh(&(commented + "// trailing, no newline")), mesh(MESH));
}

#[test]
fn double_slash_inside_a_string_is_part_of_it() {
    let parsed = mesh(
        &MESH
            .replace("\"skin\"", "\"models//skin // not a comment\"")
            .replace("\"body\"", "\"a//b\""),
    );
    assert_eq!(parsed.meshes[0].shader, "models//skin // not a comment");
    assert_eq!(parsed.joints[1].name, "a//b");
}

#[test]
fn crlf_line_ends() {
    assert_eq!(mesh(&MESH.replace('\n', "\r\n")), mesh(MESH));
    assert_eq!(anim(&ANIM.replace('\n', "\r\n")), anim(ANIM));
}

#[test]
fn a_leading_byte_order_mark_is_skipped() {
    assert_eq!(mesh(&format!("\u{feff}{MESH}")), mesh(MESH));
    let text = format!("\u{feff}{}", edit(MESH, "MD5Version 10", "MD5Version x"));
    mesh_error(&text, 1, 12, "'x'");
}

#[test]
fn crlf_does_not_shift_error_columns() {
    let text = edit(MESH, "numverts 3", "numverts x").replace('\n', "\r\n");
    mesh_error(&text, 14, 11, "expected an integer but found 'x'");
}

#[test]
fn any_whitespace_layout() {
    let one_line = MESH.split_whitespace().collect::<Vec<_>>().join(" ");
    assert_eq!(mesh(&one_line), mesh(MESH));
    let loose = MESH
        .replace('\t', "    ")
        .replace('\n', "\n\n \t\n")
        .replace(' ', " \t ");
    assert_eq!(mesh(&loose), mesh(MESH));
}

#[test]
fn brackets_and_strings_need_no_spaces() {
    let tight = edit(
        MESH,
        "\"body\"\t0 ( 1 2 3 ) ( 0.5 0 0 )",
        "\"body\"0(1 2 3)(0.5 0 0)",
    );
    assert_eq!(mesh(&tight), mesh(MESH));
}

#[test]
fn empty_meshes_and_no_meshes() {
    let empty = "MD5Version 10 commandline \"\" numJoints 1 numMeshes 2
        joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) }
        mesh { shader \"a\" numverts 0 numtris 0 numweights 0 }
        mesh { shader \"\" numverts 0 numtris 0 numweights 0 }";
    let parsed = mesh(empty);
    assert_eq!(parsed.meshes.len(), 2);
    assert!(parsed
        .meshes
        .iter()
        .all(|m| m.verts.is_empty() && m.tris.is_empty()));
    assert_eq!(parsed.meshes[1].shader, "");

    let none = "MD5Version 10 commandline \"\" numJoints 1 numMeshes 0
        joints { \"root\" -1 ( 0 0 0 ) ( 0 0 0 ) }";
    assert!(mesh(none).meshes.is_empty());
}

#[test]
fn single_frame_anim_with_nothing_animated() {
    let parsed = anim(
        "MD5Version 10 commandline \"idle\"
         numFrames 1 numJoints 1 frameRate 30 numAnimatedComponents 0
         hierarchy { \"root\" -1 0 0 }
         bounds { ( 0 0 0 ) ( 0 0 0 ) }
         baseframe { ( 0 0 0 ) ( 0 0 0 ) }
         frame 0 { }",
    );
    assert_eq!(parsed.frames, [Vec::<f32>::new()]);
    assert_eq!(parsed.bounds.len(), 1);
}

#[test]
fn number_spellings() {
    let parsed = mesh(&edit(
        MESH,
        "( 1 2 3 ) ( 0.5 0 0 )",
        "( 1e-3 -2.5E+2 +.5 ) ( 5e-1 0. -0 )",
    ));
    assert_eq!(parsed.joints[1].position, Vec3::new(1e-3, -250.0, 0.5));
    assert_eq!(parsed.joints[1].orientation, quat_from_xyz(0.5, 0.0, 0.0));
    let with_counts = mesh(&edit(MESH, "numverts 3", "numverts +3"));
    assert_eq!(with_counts.meshes[0].verts.len(), 3);
}

#[test]
fn negative_zero_keeps_its_sign() {
    let parsed = mesh(&edit(MESH, "( 1 2 3 )", "( -0 -0.0 -0e5 )"));
    let p = parsed.joints[1].position;
    assert!([p.x, p.y, p.z]
        .iter()
        .all(|c| *c == 0.0 && c.is_sign_negative()));
}

#[test]
fn quaternion_w_is_the_non_positive_root() {
    let q = quat_from_xyz(0.5, 0.5, 0.5);
    assert_eq!(q.w, -0.5);
    assert_eq!(quat_from_xyz(0.0, 0.0, 0.0).w, -1.0);
    assert_eq!(quat_from_xyz(0.0, -1.0, 0.0).w, 0.0);
    // Rounding in an exporter can push |xyz| a hair past 1: w clamps to 0.
    assert_eq!(quat_from_xyz(0.8, 0.8, 0.0).w, 0.0);
    for (x, y, z) in [(0.1, -0.2, 0.3), (-0.7, 0.1, 0.1), (0.0, 0.0, -0.99)] {
        let q = quat_from_xyz(x, y, z);
        assert!(q.w < 0.0);
        assert!((q.length() - 1.0).abs() < 1e-6, "{q} is not unit");
    }
    let parsed = mesh(MESH);
    assert_eq!(parsed.joints[1].orientation.w, -(0.75f32).sqrt());
}

// ------------------------------------------------------------- validation

#[test]
fn empty_file() {
    mesh_error("", 1, 1, "empty file");
    anim_error("  \n\t// just a comment\r\n", 3, 1, "empty file");
}

#[test]
fn not_an_md5_file() {
    mesh_error(
        "{ \"foo\": 1 }",
        1,
        1,
        "not an md5 file: expected 'MD5Version' but found '{'",
    );
    anim_error("\n  # md5anim", 2, 3, "not an md5 file");
}

#[test]
fn unsupported_version() {
    mesh_error(
        &edit(MESH, "MD5Version 10", "MD5Version 11"),
        1,
        12,
        "unsupported MD5Version 11, expected 10",
    );
    anim_error(
        &edit(ANIM, "MD5Version 10", "MD5Version ten"),
        1,
        12,
        "expected an integer but found 'ten'",
    );
}

#[test]
fn unexpected_token() {
    mesh_error(
        &edit(MESH, "\tweight 0 0 1 ( 0 0 0 )", "\tweight 0 0 1"),
        22,
        2,
        "expected '(' but found 'weight'",
    );
    mesh_error(
        &edit(MESH, "commandline", "commandLine"),
        2,
        1,
        "expected 'commandline' but found 'commandLine'",
    );
    mesh_error(
        &edit(MESH, "\"skin\"", "skin"),
        13,
        9,
        "expected a quoted string but found 'skin'",
    );
    mesh_error(
        &edit(MESH, "( 0 1 0 )", "( 0 \"1\" 0 )"),
        23,
        19,
        "expected a number but found string \"1\"",
    );
    anim_error(
        &edit(ANIM, "bounds {", "bounds ("),
        14,
        8,
        "expected '{' but found '('",
    );
}

#[test]
fn unexpected_end_of_file() {
    let cut = &MESH[..MESH.find("}\n").unwrap() + 2];
    mesh_error(cut, 11, 1, "unexpected end of file, expected mesh 0 of 1");
    let cut = MESH.trim_end().trim_end_matches('}');
    mesh_error(
        cut,
        24,
        1,
        "unexpected end of file, expected '}' after 3 weights (numweights 3)",
    );
    let cut = ANIM.trim_end().trim_end_matches('}');
    anim_error(
        cut,
        30,
        1,
        "unexpected end of file, expected '}' after 4 components",
    );
    anim_error(
        &ANIM[..ANIM.find("0.25").unwrap()],
        25,
        9,
        "unexpected end of file, expected a number",
    );
}

#[test]
fn unterminated_string() {
    mesh_error(
        &edit(MESH, "\"skin\"", "\"skin"),
        13,
        9,
        "unterminated string",
    );
    mesh_error(
        &edit(MESH, "\"test\"", "\"test"),
        2,
        13,
        "unterminated string",
    );
}

#[test]
fn joint_count_differs_from_header() {
    mesh_error(
        &edit(MESH, "numJoints 2", "numJoints 3"),
        10,
        1,
        "expected joint 2 of 3 (a quoted name) but found '}'",
    );
    mesh_error(
        &edit(MESH, "numJoints 2", "numJoints 1"),
        9,
        2,
        "expected '}' after 1 joints (numJoints 1) but found string \"body\"",
    );
}

#[test]
fn vert_count_differs_from_header() {
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 4"),
        18,
        2,
        "expected vert 3 of 4 but found 'numtris'",
    );
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 2"),
        17,
        2,
        "expected 'numtris' after 2 verts (numverts 2) but found 'vert'",
    );
}

#[test]
fn tri_count_differs_from_header() {
    mesh_error(
        &edit(MESH, "numtris 1", "numtris 2"),
        20,
        2,
        "expected tri 1 of 2 but found 'numweights'",
    );
    mesh_error(
        &edit(MESH, "numtris 1", "numtris 0"),
        19,
        2,
        "expected 'numweights' after 0 tris (numtris 0) but found 'tri'",
    );
}

#[test]
fn weight_count_differs_from_header() {
    mesh_error(
        &edit(MESH, "numweights 3", "numweights 4"),
        24,
        1,
        "expected weight 3 of 4 but found '}'",
    );
    mesh_error(
        &edit(MESH, "numweights 3", "numweights 2"),
        23,
        2,
        "expected '}' after 2 weights (numweights 2) but found 'weight'",
    );
}

#[test]
fn mesh_count_differs_from_header() {
    mesh_error(
        &edit(MESH, "numMeshes 1", "numMeshes 2"),
        25,
        1,
        "unexpected end of file, expected mesh 1 of 2",
    );
    let two = format!("{MESH}{}", &MESH[MESH.find("mesh {").unwrap()..]);
    mesh_error(
        &two,
        25,
        1,
        "expected end of file after 1 meshes (numMeshes 1) but found 'mesh'",
    );
}

#[test]
fn tri_index_out_of_range() {
    mesh_error(
        &edit(MESH, "tri 0 0 2 1", "tri 0 0 3 1"),
        19,
        10,
        "tri 0 uses vert 3 but the mesh has 3 verts",
    );
    mesh_error(
        &edit(MESH, "tri 0 0 2 1", "tri 0 0 2 -1"),
        19,
        12,
        "must not be negative, found -1",
    );
}

#[test]
fn weight_range_past_numweights() {
    mesh_error(
        &edit(MESH, "vert 2 ( 0 1 ) 2 1", "vert 2 ( 0 1 ) 2 2"),
        17,
        17,
        "vert 2 uses weights 2..4 but numweights is 3",
    );
    mesh_error(
        &edit(MESH, "vert 0 ( 0 0 ) 0 1", "vert 0 ( 0 0 ) 4294967295 1"),
        15,
        17,
        "vert 0 uses weights 4294967295..4294967296",
    );
}

#[test]
fn vert_without_weights() {
    mesh_error(
        &edit(MESH, "vert 2 ( 0 1 ) 2 1", "vert 2 ( 0 1 ) 2 0"),
        17,
        19,
        "vert 2 has countWeight 0, expected at least 1",
    );
}

#[test]
fn weight_joint_out_of_range() {
    mesh_error(
        &edit(MESH, "weight 2 1 1", "weight 2 2 1"),
        23,
        11,
        "weight 2 uses joint 2 but numJoints is 2",
    );
}

#[test]
fn parent_must_precede_its_child() {
    mesh_error(
        &edit(MESH, "\"body\"\t0", "\"body\"\t1"),
        9,
        9,
        "joint 1 has parent 1, expected -1 or a joint index below 1",
    );
    mesh_error(
        &edit(MESH, "\"body\"\t0", "\"body\"\t-2"),
        9,
        9,
        "joint 1 has parent -2",
    );
    mesh_error(
        &edit(MESH, "\"origin\"\t-1", "\"origin\"\t0"),
        8,
        11,
        "joint 0 has parent 0, expected -1 (the first joint is a root)",
    );
    anim_error(
        &edit(ANIM, "\"body\"\t0", "\"body\"\t5"),
        11,
        9,
        "joint 1 has parent 5",
    );
}

#[test]
fn entry_indices_count_up_from_zero() {
    mesh_error(
        &edit(MESH, "vert 2 (", "vert 1 ("),
        17,
        7,
        "expected vert index 2 but found 1",
    );
    mesh_error(
        &edit(MESH, "vert 0 (", "vert 1 ("),
        15,
        7,
        "expected vert index 0 but found 1",
    );
    mesh_error(
        &edit(MESH, "tri 0 0", "tri 1 0"),
        19,
        6,
        "expected tri index 0 but found 1",
    );
    mesh_error(
        &edit(MESH, "weight 1 1", "weight 0 1"),
        22,
        9,
        "expected weight index 1 but found 0",
    );
    anim_error(
        &edit(ANIM, "frame 1 {", "frame 0 {"),
        28,
        7,
        "expected frame index 1 but found 0",
    );
    anim_error(
        &edit(ANIM, "frame 1 {", "frame 2 {"),
        28,
        7,
        "expected frame index 1 but found 2",
    );
}

#[test]
fn non_finite_numbers() {
    for (number, says) in [
        ("nan", "expected a finite number but found 'nan'"),
        ("-inf", "expected a finite number but found '-inf'"),
        ("Infinity", "expected a finite number but found 'Infinity'"),
        ("1e39", "number '1e39' is out of range for a 32-bit float"),
        ("-3.5e38", "out of range"),
    ] {
        mesh_error(
            &edit(MESH, "( 1 2 3 )", &format!("( 1 {number} 3 )")),
            9,
            15,
            says,
        );
    }
    anim_error(
        &edit(ANIM, "-0.25", "NaN"),
        29,
        11,
        "expected a finite number but found 'NaN'",
    );
}

#[test]
fn integers_where_required() {
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 3.0"),
        14,
        11,
        "expected an integer but found '3.0'",
    );
    mesh_error(
        &edit(MESH, "tri 0 0 2 1", "tri 0 0 2 1e0"),
        19,
        12,
        "expected an integer but found '1e0'",
    );
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 99999999999999999999"),
        14,
        11,
        "integer '99999999999999999999' is out of range",
    );
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 4294967296"),
        14,
        11,
        "numverts 4294967296 is too large",
    );
}

#[test]
fn negative_counts() {
    mesh_error(
        &edit(MESH, "numverts 3", "numverts -3"),
        14,
        11,
        "numverts must not be negative, found -3",
    );
    mesh_error(
        &edit(MESH, "numMeshes 1", "numMeshes -1"),
        5,
        11,
        "numMeshes must not be negative",
    );
    anim_error(
        &edit(ANIM, "numAnimatedComponents 4", "numAnimatedComponents -4"),
        7,
        23,
        "must not be negative",
    );
}

#[test]
fn mesh_needs_a_joint() {
    mesh_error(
        &edit(MESH, "numJoints 2", "numJoints 0"),
        4,
        11,
        "numJoints is 0, a mesh needs at least one joint",
    );
}

#[test]
fn anim_needs_a_joint_and_a_frame() {
    anim_error(
        &edit(ANIM, "numJoints 2", "numJoints 0"),
        5,
        11,
        "numJoints is 0",
    );
    anim_error(
        &edit(ANIM, "numFrames 2", "numFrames 0"),
        4,
        11,
        "numFrames is 0, an anim needs at least one frame",
    );
}

#[test]
fn huge_counts_fail_at_the_missing_entry() {
    mesh_error(
        &edit(MESH, "numverts 3", "numverts 4000000000"),
        18,
        2,
        "expected vert 3 of 4000000000 but found 'numtris'",
    );
    mesh_error(
        &edit(MESH, "numJoints 2", "numJoints 2000000000"),
        10,
        1,
        "expected joint 2 of 2000000000",
    );
    anim_error(
        &edit(
            ANIM,
            "numAnimatedComponents 4",
            "numAnimatedComponents 4294967295",
        ),
        26,
        1,
        "frame 0 has 4 components but numAnimatedComponents is 4294967295",
    );
}

#[test]
fn frame_rate_must_be_positive() {
    anim_error(
        &edit(ANIM, "frameRate 24", "frameRate 0"),
        6,
        11,
        "frameRate must be positive, found 0",
    );
    anim_error(
        &edit(ANIM, "frameRate 24", "frameRate -24"),
        6,
        11,
        "frameRate must be positive, found -24",
    );
    anim_error(
        &edit(ANIM, "frameRate 24", "frameRate inf"),
        6,
        11,
        "expected a finite number",
    );
    assert_eq!(
        anim(&edit(ANIM, "frameRate 24", "frameRate 29.97")).frame_rate,
        29.97
    );
}

#[test]
fn flags_use_six_bits() {
    anim_error(
        &edit(ANIM, "0 57 0", "0 64 0"),
        11,
        11,
        "joint 1 'body' has flags 64, expected 0..=63",
    );
    anim_error(&edit(ANIM, "0 57 0", "0 -1 0"), 11, 11, "has flags -1");
}

#[test]
fn animated_components_must_fit_the_frame() {
    // 57 sets four bits: components 1..5 overrun a four-component frame.
    anim_error(
        &edit(ANIM, "0 57 0", "0 57 1"),
        11,
        14,
        "joint 1 'body' reads frame components 1..5 but numAnimatedComponents is 4",
    );
    anim_error(
        &edit(ANIM, "-1 0 0", "-1 1 4"),
        10,
        16,
        "joint 0 'origin' reads frame components 4..5",
    );
}

#[test]
fn frame_length_must_match_numanimatedcomponents() {
    anim_error(
        &edit(ANIM, "\t 1 2 3 0.25", "\t 1 2 3"),
        26,
        1,
        "frame 0 has 3 components but numAnimatedComponents is 4",
    );
    anim_error(
        &edit(ANIM, "\t 1.5 2 3 -0.25", "\t 1.5 2 3 -0.25 7"),
        29,
        17,
        "expected '}' after 4 components (numAnimatedComponents 4) but found '7'",
    );
}

#[test]
fn bounds_and_baseframe_counts() {
    anim_error(
        &edit(ANIM, "\t( -2 -2 -2 ) ( 2 2 2 )\n", ""),
        16,
        1,
        "expected '(' of bounds 1 of 2 but found '}'",
    );
    anim_error(
        &edit(
            ANIM,
            "\t( 1 2 3 ) ( 0.5 0 0 )\n",
            "\t( 1 2 3 ) ( 0.5 0 0 )\n\t( 0 0 0 ) ( 0 0 0 )\n",
        ),
        22,
        2,
        "expected '}' after 2 baseframe joints (numJoints 2) but found '('",
    );
}

#[test]
fn frame_count_differs_from_header() {
    anim_error(
        &edit(ANIM, "numFrames 2", "numFrames 3"),
        17,
        1,
        "expected '(' of bounds 2 of 3 but found '}'",
    );
    let cut = &ANIM[..ANIM.find("\nframe 1").unwrap()];
    anim_error(cut, 27, 1, "unexpected end of file, expected frame 1 of 2");
    let extra = format!("{ANIM}frame 2 {{ 0 0 0 0 }}\n");
    anim_error(
        &extra,
        31,
        1,
        "expected end of file after 2 frames (numFrames 2) but found 'frame'",
    );
}

#[test]
fn long_tokens_are_shortened_in_messages() {
    let long = "x".repeat(10_000);
    let error =
        parse_mesh(&edit(MESH, "numverts 3", &format!("numverts {long}")), "m").unwrap_err();
    assert!(error.message.len() < 200, "{}", error.message);
    assert!(error.message.contains("xxx..."));
}

// --------------------------------------------------------------- round trip

fn hand_built_mesh() -> Md5Mesh {
    let joint = |name: &str, parent, position, orientation| MeshJoint {
        name: name.into(),
        parent,
        position,
        orientation,
    };
    Md5Mesh {
        commandline: "mesh models/hero.mb -dest hero.md5mesh // with a comment".into(),
        joints: vec![
            joint("origin", None, Vec3::ZERO, quat_from_xyz(0.0, 0.0, 0.0)),
            joint(
                "pelvis",
                Some(0),
                Vec3::new(0.1, -2.5e-7, 39.75),
                quat_from_xyz(0.5, -0.5, 0.5),
            ),
            joint(
                "head joint",
                Some(1),
                Vec3::new(-0.0, 123456.79, 1e-30),
                quat_from_xyz(0.0, 0.0, -1.0),
            ),
            joint(
                "tail",
                Some(0),
                Vec3::splat(f32::MAX),
                quat_from_xyz(-0.123_456_79, 0.3, f32::MIN_POSITIVE),
            ),
        ],
        meshes: vec![
            Mesh {
                shader: "models/characters/hero/body".into(),
                verts: vec![
                    Vert {
                        uv: Vec2::new(0.25, 1.0),
                        start_weight: 0,
                        weight_count: 2,
                    },
                    Vert {
                        uv: Vec2::new(-0.5, 3.0e-3),
                        start_weight: 2,
                        weight_count: 1,
                    },
                    Vert {
                        uv: Vec2::new(0.999, 0.0),
                        start_weight: 0,
                        weight_count: 3,
                    },
                ],
                tris: vec![[0, 2, 1], [2, 1, 0]],
                weights: vec![
                    Weight {
                        joint: 1,
                        bias: 0.75,
                        position: Vec3::new(1.0, 2.0, 3.0),
                    },
                    Weight {
                        joint: 3,
                        bias: 0.25,
                        position: Vec3::new(-4.5, 0.0, 1e6),
                    },
                    Weight {
                        joint: 2,
                        bias: 1.0,
                        position: Vec3::new(0.1, 0.2, 0.3),
                    },
                ],
            },
            Mesh {
                shader: String::new(),
                verts: vec![],
                tris: vec![],
                weights: vec![],
            },
        ],
    }
}

fn hand_built_anim() -> Md5Anim {
    let joint = |name: &str, parent, flags, start_index| HierarchyJoint {
        name: name.into(),
        parent,
        flags,
        start_index,
    };
    Md5Anim {
        commandline: "anim walk.mb".into(),
        frame_rate: 30.0,
        // Component 5 is read by no joint and the last two joints share
        // components 2..4: legal, and the writer must keep every float.
        num_animated_components: 6,
        hierarchy: vec![
            joint("origin", None, 0b000011, 0),
            joint("pelvis", Some(0), 0b111000, 2),
            joint("spine", Some(1), 0b000000, 5),
            joint("head", Some(2), 0b000110, 2),
        ],
        bounds: vec![
            Bounds {
                min: Vec3::new(-1.0, -2.0, 0.0),
                max: Vec3::new(1.0, 2.0, 70.5),
            },
            Bounds {
                min: Vec3::splat(-0.0),
                max: Vec3::splat(1e-3),
            },
        ],
        baseframe: vec![
            BaseJoint {
                position: Vec3::ZERO,
                orientation: quat_from_xyz(0.0, 0.0, 0.0),
            },
            BaseJoint {
                position: Vec3::new(0.0, 0.0, 38.5),
                orientation: quat_from_xyz(0.5, 0.5, 0.5),
            },
            BaseJoint {
                position: Vec3::new(5.25, 0.0, 0.0),
                orientation: quat_from_xyz(0.0, -0.70710677, 0.0),
            },
            BaseJoint {
                position: Vec3::new(9.0, 0.0, -0.0),
                orientation: quat_from_xyz(0.1, 0.2, 0.3),
            },
        ],
        frames: vec![
            vec![0.0, 1.5, 0.1, -0.2, 0.3, 42.0],
            vec![-0.0, 1.75e-5, 0.5, 0.5, 0.5, -42.0],
        ],
    }
}

#[test]
fn mesh_round_trips_through_the_writer() {
    let original = hand_built_mesh();
    let text = write_mesh(&original);
    assert_eq!(mesh(&text), original, "{text}");
}

#[test]
fn anim_round_trips_through_the_writer() {
    let original = hand_built_anim();
    let text = write_anim(&original);
    assert_eq!(anim(&text), original, "{text}");
}

#[test]
fn parsed_snippets_round_trip() {
    assert_eq!(mesh(&write_mesh(&mesh(MESH))), mesh(MESH));
    assert_eq!(anim(&write_anim(&anim(ANIM))), anim(ANIM));
}

#[test]
fn writer_puts_quaternions_in_the_w_le_0_hemisphere() {
    let mut flipped = hand_built_mesh();
    // Where w is 0 both signs lie on the boundary; the format keeps whichever xyz it gets.
    for joint in flipped.joints.iter_mut().filter(|j| j.orientation.w != 0.0) {
        joint.orientation = -joint.orientation;
    }
    assert_eq!(mesh(&write_mesh(&flipped)), hand_built_mesh());
}

// ---------------------------------------------------------- skeleton check

/// The anim's skeleton, bind pose from the mesh, names and parents as given.
fn anim_for(mesh: &Md5Mesh) -> Md5Anim {
    Md5Anim {
        commandline: String::new(),
        frame_rate: 24.0,
        num_animated_components: 0,
        hierarchy: mesh
            .joints
            .iter()
            .map(|j| HierarchyJoint {
                name: j.name.clone(),
                parent: j.parent,
                flags: 0,
                start_index: 0,
            })
            .collect(),
        bounds: vec![Bounds {
            min: Vec3::ZERO,
            max: Vec3::ONE,
        }],
        baseframe: mesh
            .joints
            .iter()
            .map(|j| BaseJoint {
                position: j.position,
                orientation: j.orientation,
            })
            .collect(),
        frames: vec![vec![]],
    }
}

#[test]
fn matching_skeleton_fits_without_warnings() {
    let hero = hand_built_mesh();
    let walk = anim_for(&hero);
    assert_eq!(
        check_anim_fits_mesh(&hero, "hero.md5mesh", &walk, "walk.md5anim"),
        Ok(vec![])
    );
}

#[test]
fn renamed_joints_fit_with_one_warning_each() {
    let hero = hand_built_mesh();
    let mut walk = anim_for(&hero);
    walk.hierarchy[1].name = "Pelvis".into();
    walk.hierarchy[3].name = "tail1".into();
    assert_eq!(
        check_anim_fits_mesh(&hero, "hero.md5mesh", &walk, "walk.md5anim"),
        Ok(vec![
            "walk.md5anim: joint 1 is 'Pelvis' here but 'pelvis' in hero.md5mesh; bound by index"
                .to_owned(),
            "walk.md5anim: joint 3 is 'tail1' here but 'tail' in hero.md5mesh; bound by index"
                .to_owned(),
        ])
    );
}

#[test]
fn different_parent_does_not_fit() {
    let hero = hand_built_mesh();
    let mut walk = anim_for(&hero);
    walk.hierarchy[3].parent = Some(2);
    let error = check_anim_fits_mesh(&hero, "hero.md5mesh", &walk, "walk.md5anim").unwrap_err();
    assert_eq!(error.file, "walk.md5anim");
    assert_eq!(error.location, None);
    assert_eq!(
        error.to_string(),
        "walk.md5anim: skeleton does not fit hero.md5mesh: joint 3 'tail' has parent 2 here but 0 in the mesh"
    );
    walk.hierarchy[3].parent = None;
    let error = check_anim_fits_mesh(&hero, "hero.md5mesh", &walk, "walk.md5anim").unwrap_err();
    assert!(
        error
            .message
            .ends_with("joint 3 'tail' has parent -1 here but 0 in the mesh"),
        "{error}"
    );
}

#[test]
fn different_joint_count_does_not_fit() {
    let hero = hand_built_mesh();
    let mut walk = anim_for(&hero);
    walk.hierarchy.pop();
    let error = check_anim_fits_mesh(&hero, "hero.md5mesh", &walk, "walk.md5anim").unwrap_err();
    assert_eq!(
        error.message,
        "skeleton does not fit hero.md5mesh: 3 joints here but 4 in the mesh"
    );
}

// ------------------------------------------------------------------- files

#[test]
fn missing_file_names_the_path() {
    let path = Path::new("no/such/dir/hero.md5mesh");
    let error = read_mesh_file(path).unwrap_err();
    assert_eq!(error.file, "no/such/dir/hero.md5mesh");
    assert_eq!(error.location, None);
    assert!(error.message.starts_with("cannot read: "), "{error}");
    assert!(read_anim_file(Path::new("no/such/walk.md5anim")).is_err());
}

#[test]
fn files_with_non_utf8_bytes_still_parse() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let mesh_path = dir.join("latin1.md5mesh");
    let latin1 = MESH.replace("\"body\"", "\"b\u{1}dy\"").into_bytes();
    // Replace the marker with 0xE9 ('é' in Latin-1, invalid on its own in UTF-8).
    let bytes: Vec<u8> = latin1
        .iter()
        .map(|&b| if b == 1 { 0xE9 } else { b })
        .collect();
    std::fs::write(&mesh_path, bytes).unwrap();
    let parsed = read_mesh_file(&mesh_path).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(parsed.joints[1].name, "b\u{FFFD}dy");

    let anim_path = dir.join("broken.md5anim");
    std::fs::write(&anim_path, edit(ANIM, "frameRate 24", "frameRate 0")).unwrap();
    let error = read_anim_file(&anim_path).unwrap_err();
    assert_eq!(error.file, anim_path.display().to_string());
    assert_eq!(
        error.location,
        Some(Location {
            line: 6,
            column: 11
        })
    );
}
