use ecs::prelude::*;
use ecs::system::{assert_is_read_only_system, SystemParam};

#[derive(Resource)]
struct Score(u32);

#[derive(Component)]
struct Health(u32);

#[derive(SystemParam)]
struct Scoring<'w, 's> {
    health: Query<'w, 's, &'static Health>,
    score: ResMut<'w, Score>,
}

fn score(mut scoring: Scoring) {
    scoring.score.0 = scoring.health.iter().map(|h| h.0).sum();
}

fn main() {
    assert_is_read_only_system(score);
}
