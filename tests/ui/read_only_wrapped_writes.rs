use ecs::prelude::*;
use ecs::system::{assert_is_read_only_system, SystemParamValidationError};

#[derive(Component)]
struct Health(u32);

#[derive(Resource)]
struct Score(u32);

// A wrapper is read-only only when what it wraps is.
fn maybe_write(_: Option<ResMut<Score>>) {}
fn write_each(_: Vec<Query<&mut Health>>) {}
fn write_if(_: If<Query<&mut Health>>) {}
fn write_result(_: Result<ResMut<Score>, SystemParamValidationError>) {}

fn main() {
    assert_is_read_only_system(maybe_write);
    assert_is_read_only_system(write_each);
    assert_is_read_only_system(write_if);
    assert_is_read_only_system(write_result);
}
