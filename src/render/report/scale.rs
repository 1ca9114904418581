//! The one vertical scale of every distance the page draws, linear from 0 to 1 ULP and
//! logarithmic above: 0, 1, 2, 4, ... 2^k ULPs fall on whole numbers, so a correctly
//! rounded result, a faithful one and one off by 2^20 all read at a glance. The charts
//! ([`super::plot`]) and the colour legend ([`super::legend`]) both place distances on it.

/// A distance on the chart's vertical scale.
pub fn scale(d: f64) -> f64 {
    if d <= 1.0 { d } else { 1.0 + d.log2() }
}

/// The label of a whole number on that scale.
pub fn scale_label(y: f64) -> String {
    let k = y.round();
    if (y - k).abs() > 1e-6 || k < 0.0 {
        return String::new();
    }
    match k as i64 {
        0 => "0".into(),
        k if k <= 11 => format!("{}", 1u64 << (k - 1)),
        k => format!("2^{}", k - 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scale_puts_powers_of_two_on_whole_numbers() {
        assert_eq!(scale(0.0), 0.0);
        assert_eq!(scale(0.5), 0.5);
        assert_eq!(scale(1.0), 1.0);
        assert_eq!(scale(2.0), 2.0);
        assert_eq!(scale(1024.0), 11.0);
        assert_eq!(scale_label(0.0), "0");
        assert_eq!(scale_label(3.0), "4");
        assert_eq!(scale_label(13.0), "2^12");
        assert_eq!(scale_label(2.5), "");
    }
}
