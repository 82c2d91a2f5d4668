use ecs::prelude::*;

#[derive(Resource)]
struct Score(u32);

fn bump(mut score: ResMut<Score>) -> bool {
    score.0 += 1;
    true
}

fn takes_condition<M>(_: impl SystemCondition<M>) {}

fn main() {
    // A condition only reads: one that writes is not a condition.
    takes_condition(bump);
    let _ = resource_exists::<Score>.and_then(bump);
}
