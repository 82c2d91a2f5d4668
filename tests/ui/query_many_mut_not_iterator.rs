use ecs::prelude::*;

#[derive(Component)]
struct Health(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Health(1)).id();
    let mut query = world.query::<&mut Health>();
    // Mutable items of a list that may repeat an entity come only through
    // `fetch_next`: collecting them would alias.
    let items: Vec<_> = query.iter_many_mut(&mut world, [e, e]).collect();
    drop(items);
}
