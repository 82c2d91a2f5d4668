use ecs::prelude::*;

#[derive(Component)]
struct Health(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let mut query = world.query::<&mut Health>();
    let mut iter = query.iter_many_mut(&mut world, [e, e]);
    // The list names `e` twice: a second item alive beside the first would
    // alias it.
    let mut first = iter.fetch_next().unwrap().unwrap();
    let second = iter.fetch_next().unwrap().unwrap();
    first.0 += second.0;
}
