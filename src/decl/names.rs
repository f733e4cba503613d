//! The declared names closest to a name that is not declared, for "no
//! such model" messages.

/// Up to `count` of `candidates` (each once) closest to `name`, ignoring case: those
/// holding it, or held in it, first (shortest first), then by edit
/// distance, nearest first. A candidate more than a third of its length
/// (at least 2) away, and holding no part of the other, is left out:
/// suggesting it would not help.
pub fn closest<'a>(
    name: &str,
    candidates: impl Iterator<Item = &'a str>,
    count: usize,
) -> Vec<&'a str> {
    let wanted = name.to_lowercase();
    let mut ranked: Vec<(bool, usize, &str)> = candidates
        .filter_map(|candidate| {
            let lower = candidate.to_lowercase();
            let contains = lower.contains(&wanted) || wanted.contains(&lower);
            let distance = edit_distance(&wanted, &lower);
            let near = distance <= (lower.chars().count() / 3).max(2);
            (contains || near).then_some((
                !contains,
                if contains { lower.len() } else { distance },
                candidate,
            ))
        })
        .collect();
    ranked.sort();
    ranked.into_iter().take(count).map(|(_, _, c)| c).collect()
}

/// Levenshtein distance over characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let substitution = diagonal + usize::from(ca != cb);
            diagonal = row[j + 1];
            row[j + 1] = substitution.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("imp", "imp"), 0);
    }

    #[test]
    fn containing_names_then_near_ones() {
        let declared = [
            "monster_demon_imp",
            "monster_demon_imp_crawler",
            "monster_demon_pinky",
            "monster_zombie_fat",
            "char_marine",
        ];
        let found = closest("imp", declared.into_iter(), 5);
        assert_eq!(found, ["monster_demon_imp", "monster_demon_imp_crawler"]);
        // The crawler is 10 edits away: too far.
        let found = closest("monster_demon_ipm", declared.into_iter(), 5);
        assert_eq!(found, ["monster_demon_imp", "monster_demon_pinky"]);
        assert_eq!(
            closest("monster_zombie_fatt", declared.into_iter(), 3),
            ["monster_zombie_fat"]
        );
        assert!(closest("helicopter", declared.into_iter(), 3).is_empty());
    }
}
