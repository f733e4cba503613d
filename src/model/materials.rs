//! Each mesh's material under each skin, resolved and its images read at
//! load: the model holds what it draws with, and the GPU upload opens no
//! file and parses no `.mtr`.

use std::collections::HashMap;

use super::SkinChoice;
use crate::material::{MaterialLibrary, MaterialMaps};
use crate::skin::SkinnedMesh;
use crate::vfs::GameFile;

/// A model's materials: the distinct ones its skins give its meshes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelMaterials {
    /// One per distinct shader the skins remap the meshes' to, in the
    /// order first met.
    pub maps: Vec<MaterialMaps>,
    /// Per mesh of the model, per skin, its index into `maps`; empty for a
    /// mesh without triangles (never drawn, never looked up).
    pub of_mesh: Vec<Vec<usize>>,
    /// Images not found or not readable (each drawn with its kind's
    /// default), for the loader to log: the command line logs them once
    /// its arguments are checked, as bad input is one error line.
    pub warnings: Vec<String>,
}

impl ModelMaterials {
    /// The materials of `meshes` (of `mesh_file`) under `skins`, looked up
    /// in `library` ([`MaterialLibrary::resolve`]) and read
    /// ([`MaterialMaps::read`]); images missing or unreadable are kept in
    /// [`ModelMaterials::warnings`]. Each shader is resolved once.
    pub fn resolve(
        meshes: &[SkinnedMesh],
        skins: &[SkinChoice],
        library: &MaterialLibrary,
        mesh_file: &GameFile,
    ) -> ModelMaterials {
        let mut materials = ModelMaterials::default();
        let mut index_of_shader: HashMap<&str, usize> = HashMap::new();
        for mesh in meshes {
            if mesh.indices.is_empty() {
                materials.of_mesh.push(Vec::new());
                continue;
            }
            let of_skin = skins
                .iter()
                .map(|skin| {
                    let shader = skin.remap(&mesh.shader);
                    *index_of_shader.entry(shader).or_insert_with(|| {
                        let images = library.resolve(shader, mesh_file);
                        materials.warnings.extend(images.warnings.iter().cloned());
                        let maps = MaterialMaps::read(&images, &mut materials.warnings);
                        materials.maps.push(maps);
                        materials.maps.len() - 1
                    })
                })
                .collect();
            materials.of_mesh.push(of_skin);
        }
        materials
    }

    /// Materials a file gives its meshes itself (glTF), drawn with one
    /// skin: mesh `m` draws with `maps[mesh_materials[m]]`. Maps no mesh
    /// with triangles draws are left out. `warnings` are the images'.
    pub fn of_meshes(
        meshes: &[SkinnedMesh],
        maps: Vec<MaterialMaps>,
        mesh_materials: &[usize],
        warnings: Vec<String>,
    ) -> ModelMaterials {
        let mut materials = ModelMaterials {
            warnings,
            ..ModelMaterials::default()
        };
        let mut kept: Vec<Option<usize>> = vec![None; maps.len()];
        for (mesh, &material) in meshes.iter().zip(mesh_materials) {
            if mesh.indices.is_empty() {
                materials.of_mesh.push(Vec::new());
                continue;
            }
            let index = *kept[material].get_or_insert_with(|| {
                materials.maps.push(maps[material].clone());
                materials.maps.len() - 1
            });
            materials.of_mesh.push(vec![index]);
        }
        materials
    }
}
