//! What `decode` reports about a pattern, beyond its fields: the significand written out
//! and the Direct3D notes that apply to it.

use super::descriptor::{Class, FloatFormat};

/// A note on how Direct3D treats a pattern, with the spec section it comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Note {
    /// The spec section (`3.1.3.2`).
    pub section: &'static str,
    /// The note, one sentence.
    pub text: String,
}

impl Note {
    fn new(section: &'static str, text: impl Into<String>) -> Note {
        Note {
            section,
            text: text.into(),
        }
    }
}

/// The significand in binary, `1.f` for normals and `0.f` for subnormals and zero.
pub fn significand_binary(fmt: &FloatFormat, bits: u64) -> Option<String> {
    let f = fmt.fields(bits);
    let lead = match fmt.class(bits) {
        Class::Normal => '1',
        Class::Subnormal | Class::Zero => '0',
        Class::Infinity | Class::Nan => return None,
    };
    Some(format!(
        "{lead}.{:0w$b}",
        f.fraction,
        w = fmt.frac_bits as usize
    ))
}

/// The unbiased exponent that scales the significand (`emin` for subnormals and zero).
pub fn unbiased_exponent(fmt: &FloatFormat, bits: u64) -> Option<i32> {
    let f = fmt.fields(bits);
    match fmt.class(bits) {
        Class::Normal => Some(f.exponent as i32 - fmt.bias),
        Class::Subnormal | Class::Zero => Some(fmt.emin()),
        Class::Infinity | Class::Nan => None,
    }
}

/// The Direct3D notes for a pattern of a float format.
pub fn d3d_notes(fmt: &FloatFormat, bits: u64) -> Vec<Note> {
    let mut notes = Vec::new();
    let class = fmt.class(bits);
    let sign = fmt.fields(bits).sign;
    if !fmt.signed {
        notes.push(Note::new(
            "3.1.6",
            format!(
                "{} has no sign bit: a negative result clamps to 0 when stored",
                fmt.name
            ),
        ));
    }
    match class {
        Class::Subnormal if fmt.arithmetic_flushes_subnormals => notes.push(Note::new(
            "3.1.3.2",
            format!(
                "subnormal: D3D arithmetic flushes it to {}0 on input and output; mov, ld and other pure data moves keep it",
                if sign { "-" } else { "+" }
            ),
        )),
        Class::Subnormal => notes.push(Note::new(
            fmt.section,
            format!("subnormal: D3D keeps {} denorms (no flush)", fmt.name),
        )),
        Class::Nan => {
            if fmt.has_quiet_bit {
                notes.push(Note::new(
                    "3.1.3.2",
                    "D3D does not tell quiet from signalling NaN: every NaN behaves the same, and arithmetic need not keep the payload",
                ));
            } else {
                notes.push(Note::new(
                    "3.1.6",
                    "NaN: exponent all ones with a non-zero fraction; no quiet/signalling distinction",
                ));
            }
        }
        Class::Zero if sign => notes.push(Note::new(
            "3.1.3.1",
            "negative zero: compares equal to +0 (min and max may still order the two zeros either way, §3.1.3.2)",
        )),
        _ => {}
    }
    if *fmt == super::descriptor::F16
        && class == Class::Normal
        && bits & fmt.magnitude_mask() == fmt.max_finite()
    {
        notes.push(Note::new(
            "3.2.2",
            "largest finite half: D3D's float-to-float conversion (round toward zero) gives this, not INF, for larger values",
        ));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::{F11, F16, F32};

    #[test]
    fn significand_and_exponent() {
        assert_eq!(significand_binary(&F16, 0x3e00).unwrap(), "1.1000000000");
        assert_eq!(significand_binary(&F11, 0x001).unwrap(), "0.000001");
        assert_eq!(unbiased_exponent(&F16, 0x0001), Some(-14));
        assert_eq!(unbiased_exponent(&F16, 0x7c00), None);
    }

    #[test]
    fn notes_name_the_flush() {
        let notes = d3d_notes(&F32, 0x0000_0001);
        assert!(
            notes
                .iter()
                .any(|n| n.section == "3.1.3.2" && n.text.contains("+0"))
        );
        assert!(d3d_notes(&F16, 0x0001)[0].text.contains("keeps"));
        assert!(d3d_notes(&F11, 0x3c0)[0].text.contains("no sign"));
    }
}
