//! A small, fast, seedable random number generator (SplitMix64), so the kit needs no `rand` crate.
//! Not for cryptography.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// SplitMix64: 64 bits of state, good enough for games and jitter.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed: the same seed gives the same numbers.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// A generator seeded from the clock, the process id and a counter.
    pub fn from_entropy() -> Rng {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos() as u64).unwrap_or(0);
        let count = COUNTER.fetch_add(1, Ordering::Relaxed);
        Rng(nanos ^ (u64::from(std::process::id()) << 32) ^ count.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform integer in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * n as f64) as usize % n.max(1)
    }

    /// A uniform float in `[low, high)`.
    pub fn uniform(&mut self, low: f64, high: f64) -> f64 {
        low + (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * (high - low)
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn seeded_generators_repeat_and_stay_in_range() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut seen = [false; 5];
        for _ in 0..1000 {
            seen[a.below(5)] = true;
            let x = a.uniform(0.5, 1.0);
            assert!((0.5..1.0).contains(&x));
        }
        assert!(seen.iter().all(|&s| s));
    }
}
