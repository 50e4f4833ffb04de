//! The pre-queue lottery: a seeded shuffle that anyone holding the seed and
//! the joins (in the order the log has them) can recompute.
//!
//! Fisher–Yates from the last index down, each pick `next() % (i + 1)` from
//! SplitMix64 seeded with the seed (the generator Java's `SplittableRandom`
//! uses; chosen because it is a dozen well-known lines an auditor can
//! rewrite in any language).

/// Seeds stay below 2^53 so they survive JSON numbers in every client.
pub const SEED_MASK: u64 = (1 << 53) - 1;

struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The drawn order of `n` joins: position `p` (1-based) goes to the join at
/// index `order[p - 1]` of the log's join order.
pub fn draw_order(n: usize, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut random = SplitMix64(seed);
    for i in (1..n).rev() {
        let j = (random.next() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix64_matches_its_reference_values() {
        // The first outputs for seed 0 of the reference implementation.
        let mut random = SplitMix64(0);
        assert_eq!(random.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(random.next(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn the_same_seed_draws_the_same_order() {
        assert_eq!(draw_order(1000, 42), draw_order(1000, 42));
        assert_ne!(draw_order(1000, 42), draw_order(1000, 43));
        assert!(draw_order(0, 1).is_empty());
    }
}
