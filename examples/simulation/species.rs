//! The two species' traits, and the constants of the meadow they live on.

pub struct Traits {
    /// Units per frame when wandering, and when fleeing or chasing.
    pub speed: f32,
    pub sprint: f32,
    /// Energy burnt per frame: `basal`, plus `per_speed2` times speed².
    pub basal: f32,
    pub per_speed2: f32,
    pub max_energy: f32,
    /// Conceives with this chance per frame from this age, above this
    /// energy; gives birth to up to `litter` young after `gestation`
    /// frames, each costing the mother `birth_cost`.
    pub conception_chance: f32,
    pub maturity: u32,
    pub fertile: f32,
    pub gestation: u32,
    pub litter: u32,
    pub birth_cost: f32,
    pub newborn_energy: f32,
    pub lifespan: (u32, u32),
}

pub const RABBIT: Traits = Traits {
    speed: 0.6,
    sprint: 1.5,
    basal: 0.12,
    per_speed2: 0.1,
    max_energy: 40.0,
    conception_chance: 0.01,
    maturity: 40,
    fertile: 30.0,
    gestation: 15,
    litter: 3,
    birth_cost: 6.0,
    newborn_energy: 12.0,
    lifespan: (150, 350),
};

pub const FOX: Traits = Traits {
    speed: 0.5,
    sprint: 1.7,
    basal: 0.15,
    per_speed2: 0.08,
    max_energy: 100.0,
    conception_chance: 0.007,
    maturity: 80,
    fertile: 80.0,
    gestation: 40,
    litter: 2,
    birth_cost: 25.0,
    newborn_energy: 40.0,
    lifespan: (400, 800),
};

pub fn traits(is_fox: bool) -> &'static Traits {
    if is_fox {
        &FOX
    } else {
        &RABBIT
    }
}

/// Animals per square unit at the start; foxes per den, and its radius.
pub const DENSITY: f32 = 0.1;
pub const DEN_SIZE: u32 = 800;
pub const DEN_RADIUS: f32 = 40.0;
/// Side of a grid cell; also how far a hungry fox sees.
pub const CELL_SIZE: f32 = 16.0;
/// How close a hunting fox comes before a rabbit notices it, and before it
/// catches one; what a rabbit is worth to it.
pub const NOTICE: f32 = 6.0;
pub const CATCH: f32 = 1.0;
pub const MEAL: f32 = 25.0;
/// Foxes get hungry below `HUNGRY` energy, and are sated above `SATED`.
pub const HUNGRY: f32 = 50.0;
pub const SATED: f32 = 85.0;
/// Grass per tile is in 0..=1. A grazing rabbit eats `BITE` of it per
/// frame, at `GRASS_ENERGY` per unit, where it is at least `GOOD_GRASS`.
pub const TILE_SIZE: f32 = 4.0;
pub const BITE: f32 = 0.08;
pub const GRASS_ENERGY: f32 = 10.0;
pub const GOOD_GRASS: f32 = 0.15;
/// Logistic regrowth per frame, and a trickle so bare tiles recover.
pub const REGROWTH: f32 = 0.5;
pub const SEEDING: f32 = 0.004;
