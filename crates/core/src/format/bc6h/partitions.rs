//! The 32 partitions of two-region blocks (§19.5.13.4, Table 1; the first 32 of BC7's
//! two-subset table), and the anchor ("fix-up") texel of region 1, whose index is stored
//! with one bit less. Region 0's anchor is always texel 0.

/// Each partition as 16 region numbers, texel 0 (top left) first, row by row.
const PARTITIONS: [[u8; 16]; 32] = [
    [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1],
    [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
    [0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1],
    [0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1],
    [0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0],
    [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0],
    [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0],
    [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1],
    [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0],
    [0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0],
    [0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0],
    [0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0],
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
    [0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0],
    [0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0],
];

/// The texel of region 1 whose index has one bit less: the bold, underlined entry of each
/// shape in Table 1.
const ANCHORS: [u8; 32] = [
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, //
    15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2,
];

/// The region of each texel in partition `p` (0 to 31); one-region modes use all zeros.
pub fn regions(p: u8) -> &'static [u8; 16] {
    &PARTITIONS[p as usize]
}

/// Region 1 of partition `p` as a bit mask, bit `i` for texel `i`.
pub fn region_one_mask(p: u8) -> u16 {
    REGION_ONE_MASKS[p as usize]
}

const REGION_ONE_MASKS: [u16; 32] = {
    let mut masks = [0u16; 32];
    let mut p = 0;
    while p < 32 {
        let mut i = 0;
        while i < 16 {
            masks[p] |= (PARTITIONS[p][i] as u16) << i;
            i += 1;
        }
        p += 1;
    }
    masks
};

/// The anchor texel of region 1 in partition `p`.
pub fn anchor(p: u8) -> usize {
    ANCHORS[p as usize] as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_lie_in_region_one_and_texel_zero_in_region_zero() {
        for p in 0..32u8 {
            assert_eq!(regions(p)[0], 0, "partition {p}");
            assert_eq!(regions(p)[anchor(p)], 1, "partition {p}");
            let ones = regions(p).iter().filter(|&&r| r == 1).count();
            assert!((3..=13).contains(&ones), "partition {p}: {ones}");
        }
    }
}
