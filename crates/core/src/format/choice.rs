//! The user-facing choices (a rounding mode, an EXR compression, a BC6H quality, a rule
//! set): each is a closed set of values whose names, aliases and one-line descriptions are
//! written once, on the enum, and read from there by `FromStr` and `Display`, the command
//! line (its possible values, `--help`, completions and man pages) and the Python package.

/// A closed set of named values, as the command line and the Python package take them.
pub trait Choice: Copy + Eq + Sized + 'static {
    /// What the choice is called in a refusal: `rounding` in "unknown rounding 'x'".
    const WHAT: &'static str;
    /// Every value, in the order help and messages list them.
    const ALL: &'static [Self];

    /// The value's name, as typed and printed.
    fn name(self) -> &'static str;

    /// Other names the value is taken by (never printed as its name).
    fn aliases(self) -> &'static [&'static str] {
        &[]
    }

    /// One line saying what the value does (the command line's help for it).
    fn summary(self) -> &'static str;
}

/// A name that names none of a [`Choice`]'s values; it lists what would have been taken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} '{given}' (expected one of {expected})")]
pub struct UnknownChoice {
    /// [`Choice::WHAT`].
    pub what: &'static str,
    /// The name as it was given.
    pub given: String,
    /// Every name and then every alias, separated by `, `.
    pub expected: String,
}

/// The value `s` names (surrounding space and letter case ignored), by its name or one of
/// its aliases.
pub fn parse_choice<T: Choice>(s: &str) -> Result<T, UnknownChoice> {
    let wanted = s.trim().to_ascii_lowercase();
    T::ALL
        .iter()
        .copied()
        .find(|v| v.name() == wanted || v.aliases().contains(&wanted.as_str()))
        .ok_or_else(|| UnknownChoice {
            what: T::WHAT,
            given: s.to_string(),
            expected: every_name::<T>().collect::<Vec<_>>().join(", "),
        })
}

/// Every name a [`Choice`] takes: the names in order, then the aliases.
pub fn every_name<T: Choice>() -> impl Iterator<Item = &'static str> {
    let names = T::ALL.iter().map(|v| v.name());
    let aliases = T::ALL.iter().flat_map(|v| v.aliases().iter().copied());
    names.chain(aliases)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Rounding;

    #[test]
    fn names_and_aliases_parse_in_any_case() {
        assert_eq!(parse_choice::<Rounding>(" RNE "), Ok(Rounding::NearestEven));
        assert_eq!(parse_choice::<Rounding>("d3d"), Ok(Rounding::TowardZero));
        for r in Rounding::ALL {
            assert_eq!(r.to_string().parse::<Rounding>(), Ok(r));
        }
    }

    #[test]
    fn a_refusal_lists_names_then_aliases() {
        let e = parse_choice::<Rounding>("nearest").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown rounding 'nearest' (expected one of rne, rtz, rtp, rtn, d3d)"
        );
    }
}
