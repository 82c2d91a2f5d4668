//! A scripting layer's view of the ECS: component types defined at run
//! time from a schema (names and `f32` fields), entities spawned with
//! values given by name, and queries built from component names.

use std::{alloc::Layout, collections::HashMap};

use ecs::component::{ComponentDescriptor, ComponentId, StorageType};
use ecs::prelude::*;
use ecs::ptr::PtrMut;

/// The schema a script would declare: each component and its fields.
const SCHEMA: &[(&str, &[&str])] = &[
    ("Position", &["x", "y"]),
    ("Velocity", &["dx", "dy"]),
    ("Health", &["hp"]),
];

/// A run-time component type: its id and its field names, in layout order.
struct ScriptComponent {
    id: ComponentId,
    fields: Vec<&'static str>,
}

/// Registers every schema type as a component of `f32` fields.
fn register_schema(world: &mut World) -> HashMap<&'static str, ScriptComponent> {
    SCHEMA
        .iter()
        .map(|&(name, fields)| {
            let layout = Layout::array::<f32>(fields.len()).expect("small schema");
            // SAFETY: values are plain `f32`s: no drop, Send and Sync.
            let descriptor = unsafe {
                ComponentDescriptor::new_with_layout(name, StorageType::Table, layout, None)
            };
            let id = world.register_component_with_descriptor(descriptor);
            (
                name,
                ScriptComponent {
                    id,
                    fields: fields.to_vec(),
                },
            )
        })
        .collect()
}

/// Spawns an entity from `(component, field values)` pairs, as a script's
/// `spawn { Position = {1, 2} }` would.
fn spawn(
    world: &mut World,
    types: &HashMap<&'static str, ScriptComponent>,
    values: &[(&str, &[f32])],
) -> Entity {
    let mut entity = world.spawn_empty();
    for &(name, fields) in values {
        let ty = &types[name];
        assert_eq!(
            fields.len(),
            ty.fields.len(),
            "`{name}` has fields {:?}",
            ty.fields
        );
        let mut data = fields.to_vec();
        // SAFETY: `data` holds exactly the component's `f32` fields; `f32`
        // is `Copy`, so the world's copy leaves `data` fine to drop.
        unsafe { entity.insert_by_id(ty.id, PtrMut::from(&mut data[..]).promote()) };
    }
    entity.id()
}

fn main() {
    let mut world = World::new();
    let types = register_schema(&mut world);
    spawn(
        &mut world,
        &types,
        &[("Position", &[0.0, 0.0]), ("Velocity", &[1.0, 2.0])],
    );
    spawn(
        &mut world,
        &types,
        &[("Position", &[5.0, 5.0]), ("Health", &[10.0])],
    );
    spawn(
        &mut world,
        &types,
        &[("Position", &[1.0, 1.0]), ("Velocity", &[-1.0, 0.0])],
    );

    // A script's `for (pos, vel) in query("Position", "Velocity")`.
    let position = world.components().id_by_name("Position").unwrap();
    let velocity = world.components().id_by_name("Velocity").unwrap();
    let mut movers = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(position)
        .ref_id(velocity)
        .build();
    for mut entity in movers.iter_mut(&mut world) {
        // SAFETY: both components are two `f32`s.
        let (dx, dy) = unsafe {
            let v = entity.get_by_id(velocity).unwrap().deref::<[f32; 2]>();
            (v[0], v[1])
        };
        let mut pos = entity.get_mut_by_id(position).unwrap();
        // SAFETY: as above.
        let p = unsafe { pos.as_mut().deref_mut::<[f32; 2]>() };
        p[0] += dx;
        p[1] += dy;
    }

    // A script's bulk pass, table by table: each column resolved by id once
    // per table, every velocity halved.
    let mut damp = QueryBuilder::<FilteredEntityMut>::new(&mut world)
        .mut_id(velocity)
        .build();
    let mut damped = 0;
    for table in damp
        .contiguous_iter_mut(&mut world)
        .expect("table components walk tables")
    {
        let mut column = table.get_mut_by_id(velocity).unwrap();
        for row in 0..column.len() {
            // SAFETY: `Velocity` is two `f32`s.
            let v = unsafe { column.get_mut(row).unwrap().deref_mut::<[f32; 2]>() };
            v[0] *= 0.5;
            v[1] *= 0.5;
            damped += 1;
        }
    }
    println!("damped {damped} velocities");
    assert_eq!(damped, movers.iter(&world).count());

    let mut all = QueryBuilder::<FilteredEntityRef>::new(&mut world)
        .ref_id(position)
        .optional(|b| {
            b.ref_id(velocity);
        })
        .build();
    let mut moved = Vec::new();
    for entity in all.iter(&world) {
        // SAFETY: `Position` is two `f32`s.
        let p = unsafe { *entity.get_by_id(position).unwrap().deref::<[f32; 2]>() };
        println!("{:?}: Position {{ x: {}, y: {} }}", entity.id(), p[0], p[1]);
        moved.push(p);
    }
    moved.sort_by(|a, b| a[0].total_cmp(&b[0]));
    assert_eq!(moved, [[0.0, 1.0], [1.0, 2.0], [5.0, 5.0]]);
}
