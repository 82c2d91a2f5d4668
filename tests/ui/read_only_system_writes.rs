use ecs::prelude::*;
use ecs::system::assert_is_read_only_system;

#[derive(Component)]
struct Health(u32);

#[derive(Resource)]
struct Score(u32);

fn heal(mut query: Query<&mut Health>) {
    for mut health in &mut query {
        health.0 += 1;
    }
}

fn score(In(n): In<u32>, mut score: ResMut<Score>) {
    score.0 += n;
}

fn count(query: Query<&Health>) -> u32 {
    query.iter().map(|h| h.0).sum()
}

fn main() {
    assert_is_read_only_system(heal);
    assert_is_read_only_system(count.pipe(score));
}
