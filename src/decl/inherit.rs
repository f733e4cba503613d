//! `inherit` chains, for models and entityDefs alike: each declaration is
//! resolved once, parents first, and a chain that comes back to a
//! declaration already being resolved (a cycle) or runs deeper than
//! [`MAX_INHERIT_DEPTH`] is a warning at the `inherit` that would close
//! it, which is then ignored.

use super::DeclKind;

/// Doom 3's deepest chains are a few declarations long; this bounds the
/// recursion on hostile files.
pub const MAX_INHERIT_DEPTH: usize = 64;

/// How one declaration resolves, given a way to resolve a parent by name
/// (which gives the parent's result, or the warning to give instead):
/// the result and warnings (line, message).
pub type Apply<'a, T> =
    dyn Fn(usize, &mut dyn FnMut(&str) -> Result<T, String>) -> (T, Vec<(u32, String)>) + 'a;

/// Resolves declarations `0..count` of `kind`; `find` gives a
/// declaration's index by name. Returns each one's result and the
/// warnings as (declaration, line, message).
pub fn resolve_all<T: Clone>(
    kind: DeclKind,
    count: usize,
    find: &dyn Fn(&str) -> Option<usize>,
    apply: &Apply<T>,
) -> (Vec<T>, Vec<(usize, u32, String)>) {
    let mut resolver = Resolver {
        kind,
        find,
        apply,
        states: vec![State::Waiting; count],
        warnings: Vec::new(),
    };
    let results = (0..count).map(|i| resolver.resolve(i, 0)).collect();
    (results, resolver.warnings)
}

#[derive(Clone)]
enum State<T> {
    Waiting,
    InProgress,
    Done(T),
}

struct Resolver<'a, T> {
    kind: DeclKind,
    find: &'a dyn Fn(&str) -> Option<usize>,
    apply: &'a Apply<'a, T>,
    states: Vec<State<T>>,
    warnings: Vec<(usize, u32, String)>,
}

impl<T: Clone> Resolver<'_, T> {
    fn resolve(&mut self, i: usize, depth: usize) -> T {
        if let State::Done(result) = &self.states[i] {
            return result.clone();
        }
        self.states[i] = State::InProgress;
        let apply = self.apply;
        let (result, warnings) = apply(i, &mut |parent| self.parent(parent, depth));
        self.warnings.extend(
            warnings
                .into_iter()
                .map(|(line, message)| (i, line, message)),
        );
        self.states[i] = State::Done(result.clone());
        result
    }

    fn parent(&mut self, name: &str, depth: usize) -> Result<T, String> {
        let kind = self.kind.type_word();
        let Some(parent) = (self.find)(name) else {
            return Err(format!("inherits '{name}', but no {kind} has that name"));
        };
        if matches!(self.states[parent], State::InProgress) {
            return Err(format!(
                "inherits '{name}', which inherits this {kind} again: the cycle is ignored here"
            ));
        }
        if depth >= MAX_INHERIT_DEPTH {
            return Err(format!(
                "inherits '{name}' more than {MAX_INHERIT_DEPTH} {kind}s deep"
            ));
        }
        Ok(self.resolve(parent, depth + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Declaration `i` inherits `i + 1`, the last none; each result is
    /// the chain's length below it.
    fn chain(count: usize) -> (Vec<usize>, Vec<(usize, u32, String)>) {
        let find = |name: &str| name.parse::<usize>().ok().filter(|&i| i < count);
        let apply = |i: usize, parent: &mut dyn FnMut(&str) -> Result<usize, String>| {
            if i + 1 == count {
                return (0, Vec::new());
            }
            match parent(&(i + 1).to_string()) {
                Ok(below) => (below + 1, Vec::new()),
                Err(warning) => (0, vec![(1, warning)]),
            }
        };
        resolve_all(DeclKind::Entity, count, &find, &apply)
    }

    #[test]
    fn chains_resolve_parents_first_and_stop_deep_down() {
        let (depths, warnings) = chain(10);
        assert_eq!(depths, (0..10).rev().collect::<Vec<_>>());
        assert!(warnings.is_empty());
        // 100 deep: the 65th inherit from the top is not followed.
        let (depths, warnings) = chain(100);
        assert_eq!(
            warnings,
            [(
                64,
                1,
                "inherits '65' more than 64 entityDefs deep".to_owned()
            )]
        );
        assert_eq!(depths[64], 0);
        assert_eq!(depths[0], 64);
        assert_eq!(depths[65], 34);
    }
}
