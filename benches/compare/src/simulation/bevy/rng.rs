//! Deterministic randomness: a generator per animal and frame, so the order
//! in which threads visit entities does not change a run.

use super::components::RandomKey;

/// SplitMix64: tiny, and good enough for a simulation.
pub struct Rng(pub u64);

impl Rng {
    /// A generator for one animal in one frame: the same numbers whichever
    /// thread asks.
    pub fn for_animal(seed: u64, animal: RandomKey, frame: u32, stream: u64) -> Rng {
        let key = (u64::from(frame) << 8) | stream;
        Rng(seed
            ^ animal.0.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            ^ key.wrapping_mul(0xD1B5_4A32_D192_ED03))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let z = (self.0 ^ (self.0 >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..hi`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next_u64() >> 40) as f32 / (1u64 << 24) as f32)
    }

    pub fn below(&mut self, n: u32) -> u32 {
        (self.next_u64() % u64::from(n)) as u32
    }
}

/// Streams keep the draws of different systems apart.
pub const WANDER: u64 = 1;
pub const BREED: u64 = 2;
pub const BIRTH: u64 = 3;
