//! Declaration files read one after the other into a [`DeclSet`]: each
//! declaration's body parsed as its type says, the first of a name kept,
//! then inherits resolved once all files are in (a parent may come in a
//! later file).

use std::collections::HashMap;

use super::entity::{self, EntityBody, Keys};
use super::model::{self, ModelContents, Statement};
use super::scan::{self, RawDecl};
use super::skin;
use super::{inherit, DeclKind, DeclSet, DeclSource, EntityDef, ModelDecl, Origin, Skin};

/// Declarations read so far, inherits not yet resolved.
#[derive(Default)]
pub struct Reading {
    models: Vec<(ModelDecl, Vec<Statement>)>,
    entities: Vec<(EntityDef, EntityBody)>,
    skins: Vec<Skin>,
    /// By kind and lower-case name: the index in its list.
    index: HashMap<(DeclKind, String), usize>,
    warnings: Vec<String>,
}

fn warn(warnings: &mut Vec<String>, source: &str, line: u32, message: &str) {
    let warning = format!("{source}:{line}: {message}");
    log::warn!("{warning}");
    warnings.push(warning);
}

impl Reading {
    pub fn source(&mut self, source: &DeclSource) {
        let (decls, warnings) = scan::scan(&source.origin, &source.text);
        for (line, message) in warnings {
            warn(&mut self.warnings, &source.origin, line, &message);
        }
        for decl in decls {
            let key = (decl.kind, decl.name.to_lowercase());
            match self.origin_of(&key).cloned() {
                Some(first) => {
                    let message = format!(
                        "{} '{}' is declared again; the one at {first} is used",
                        decl.kind.type_word(),
                        decl.name
                    );
                    warn(
                        &mut self.warnings,
                        &decl.origin.source,
                        decl.origin.line,
                        &message,
                    );
                }
                None => self.read(decl, key),
            }
        }
    }

    /// Where the declaration of `key` kept so far starts.
    fn origin_of(&self, key: &(DeclKind, String)) -> Option<&Origin> {
        let i = *self.index.get(key)?;
        Some(match key.0 {
            DeclKind::Model => &self.models[i].0.origin,
            DeclKind::Entity => &self.entities[i].0.origin,
            DeclKind::Skin => &self.skins[i].origin,
        })
    }

    /// Parses a declaration's body into its list under `key`; a syntax
    /// error skips it with a warning.
    fn read(&mut self, decl: RawDecl, key: (DeclKind, String)) {
        let RawDecl {
            kind,
            name,
            origin,
            body,
            end_line,
        } = decl;
        let error = match kind {
            DeclKind::Model => match model::parse_model(&body, end_line) {
                Ok(statements) => {
                    let contents = ModelContents::default();
                    let decl = ModelDecl {
                        name,
                        origin,
                        contents,
                    };
                    self.index.insert(key, self.models.len());
                    self.models.push((decl, statements));
                    return;
                }
                Err(error) => error,
            },
            DeclKind::Entity => match entity::parse_entity(&body, end_line) {
                Ok((body, warnings)) => {
                    for (line, message) in warnings {
                        warn(&mut self.warnings, &origin.source, line, &message);
                    }
                    let keys = Keys::default();
                    self.index.insert(key, self.entities.len());
                    self.entities.push((EntityDef { name, origin, keys }, body));
                    return;
                }
                Err(error) => error,
            },
            DeclKind::Skin => match skin::parse_skin(&body, end_line) {
                Ok(body) => {
                    self.index.insert(key, self.skins.len());
                    self.skins.push(Skin { name, origin, body });
                    return;
                }
                Err(error) => error,
            },
        };
        let message = format!(
            "{} (the {} '{name}' is skipped)",
            error.message,
            kind.type_word()
        );
        warn(&mut self.warnings, &origin.source, error.line, &message);
    }

    /// Resolves every inherit (models and entityDefs apart: their names
    /// are separate).
    pub fn finish(mut self) -> DeclSet {
        let index = &self.index;
        let find_model = |name: &str| index.get(&(DeclKind::Model, name.to_lowercase())).copied();
        let models = &self.models;
        let apply_model =
            |i: usize, parent: &mut dyn FnMut(&str) -> Result<ModelContents, String>| {
                let (decl, statements) = &models[i];
                let declaring = model::Declaring {
                    name: &decl.name,
                    source: &decl.origin.source,
                };
                model::apply(&declaring, statements, parent)
            };
        let (contents, model_warnings) =
            inherit::resolve_all(DeclKind::Model, models.len(), &find_model, &apply_model);
        let find_entity = |name: &str| index.get(&(DeclKind::Entity, name.to_lowercase())).copied();
        let entities = &self.entities;
        let apply_entity = |i: usize, parent: &mut dyn FnMut(&str) -> Result<Keys, String>| {
            entity::inherit(&entities[i].1, parent)
        };
        let (keys, entity_warnings) = inherit::resolve_all(
            DeclKind::Entity,
            entities.len(),
            &find_entity,
            &apply_entity,
        );

        let mut warnings = std::mem::take(&mut self.warnings);
        for (i, line, message) in model_warnings {
            let (decl, _) = &self.models[i];
            let message = format!("model '{}' {message}", decl.name);
            warn(&mut warnings, &decl.origin.source, line, &message);
        }
        for (i, line, message) in entity_warnings {
            let (decl, _) = &self.entities[i];
            let message = format!("entityDef '{}' {message}", decl.name);
            warn(&mut warnings, &decl.origin.source, line, &message);
        }
        DeclSet {
            models: (self.models.into_iter().zip(contents))
                .map(|((decl, _), contents)| ModelDecl { contents, ..decl })
                .collect(),
            entities: (self.entities.into_iter().zip(keys))
                .map(|((decl, _), keys)| EntityDef { keys, ..decl })
                .collect(),
            skins: self.skins,
            index: self.index,
            warnings,
        }
    }
}
