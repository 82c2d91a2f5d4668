use ecs::prelude::*;

#[derive(Component)]
#[component(immutable)]
struct Level(u32);

fn main() {
    let mut world = World::new();
    let e = world.spawn(Level(1)).id();
    // An immutable component has no `get_mut`: `modify_component` or a new
    // value instead.
    world.get_mut::<Level>(e).unwrap().0 += 1;
}
