//! Behaviour of `#[derive(QueryData)]` and `#[derive(QueryFilter)]`
//! through the `World`: what each derived query yields, which entities it
//! matches, and that the read-only twin, generics, nesting, sparse-set
//! components and `#[ecs(crate = ..)]` all work as the plain tuple query
//! would.

use ecs::change_detection::{Mut, Ref};
use ecs::component::Mutable;
use ecs::prelude::*;
use ecs::query::{
    Added, AnyOf, Changed, Has, Or, QueryData, QueryFilter, ReadOnlyQueryData, With, Without,
    WorldQuery,
};

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Velocity {
    x: f32,
    y: f32,
}

#[derive(Component, Clone, Copy, Debug, PartialEq)]
struct Health(u32);

#[derive(Component, Clone, Copy, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Stunned(u32);

#[derive(Component)]
struct Enemy;

#[derive(Component)]
struct Dead;

/// The example of the API contract.
#[derive(QueryData)]
#[query_data(mutable, derive(Debug))]
struct Mover {
    entity: Entity,
    pos: &'static mut Position,
    vel: &'static Velocity,
}

#[derive(QueryFilter)]
struct Enemies {
    _enemy: With<Enemy>,
    _alive: Without<Dead>,
}

const fn pos(x: f32, y: f32) -> Position {
    Position { x, y }
}

const fn vel(x: f32, y: f32) -> Velocity {
    Velocity { x, y }
}

/// Three movers (one of them also an `Enemy`, so in another table) and an
/// entity without `Velocity`, which `Mover` does not match.
fn movers() -> (World, [Entity; 3], Entity) {
    let mut world = World::new();
    let a = world.spawn((pos(0.0, 0.0), vel(1.0, 2.0))).id();
    let b = world.spawn((pos(10.0, 10.0), vel(-1.0, 0.0))).id();
    let c = world.spawn((pos(5.0, 5.0), vel(0.5, 0.5), Enemy)).id();
    let still = world.spawn(pos(7.0, 7.0)).id();
    (world, [a, b, c], still)
}

#[test]
fn iter_mut_yields_items_that_write() {
    let (mut world, [a, b, c], still) = movers();
    let mut query = world.query::<Mover>();
    let mut seen = Vec::new();
    for mut mover in query.iter_mut(&mut world) {
        let item: &mut MoverItem<'_, '_> = &mut mover;
        let _: &mut Mut<'_, Position> = &mut item.pos;
        let _: &&Velocity = &item.vel;
        mover.pos.x += mover.vel.x;
        mover.pos.y += mover.vel.y;
        seen.push(mover.entity);
    }
    seen.sort();
    assert_eq!(seen, [a, b, c]);
    assert_eq!(world.get::<Position>(a), Some(&pos(1.0, 2.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(9.0, 10.0)));
    assert_eq!(world.get::<Position>(c), Some(&pos(5.5, 5.5)));
    assert_eq!(world.get::<Position>(still), Some(&pos(7.0, 7.0)));
}

#[test]
fn iter_yields_the_read_only_twin() {
    let (mut world, [a, ..], _) = movers();
    let mut query = world.query::<Mover>();
    let mut total = 0.0;
    for mover in query.iter(&world) {
        let mover: MoverReadOnlyItem<'_, '_> = mover;
        let _: &Position = mover.pos;
        let _: &Velocity = mover.vel;
        total += mover.pos.x;
    }
    assert_eq!(total, 15.0);
    let item = query.get(&world, a).unwrap();
    assert_eq!(
        (item.entity, *item.pos, *item.vel),
        (a, pos(0.0, 0.0), vel(1.0, 2.0))
    );
    // Several read-only items may be alive at once.
    let items: Vec<MoverReadOnlyItem<'_, '_>> = query.iter(&world).collect();
    assert_eq!(items.len(), 3);

    // The twin is a query of its own, and read-only.
    let mut twin = world.query::<MoverReadOnly>();
    assert_eq!(twin.iter(&world).count(), 3);
    assert_read_only::<MoverReadOnly>();
    const { assert!(!<Mover as QueryData>::IS_READ_ONLY) };
    const { assert!(<MoverReadOnly as QueryData>::IS_READ_ONLY) };
}

fn assert_read_only<D: ReadOnlyQueryData>() {}

#[test]
fn query_filtered_with_a_derived_filter() {
    let mut world = World::new();
    let alive = world.spawn((Enemy, Health(3))).id();
    let _dead = world.spawn((Enemy, Dead, Health(0))).id();
    let _friend = world.spawn(Health(5)).id();
    let also_alive = world.spawn(Enemy).id();

    let mut query = world.query_filtered::<Entity, Enemies>();
    let mut enemies: Vec<Entity> = query.iter(&world).collect();
    enemies.sort();
    assert_eq!(enemies, [alive, also_alive]);
    const { assert!(<Enemies as QueryFilter>::IS_ARCHETYPAL) };

    // Derived data and a derived filter together.
    let mut query = world.query_filtered::<ReadHealth, Enemies>();
    let healths: Vec<u32> = query.iter(&world).map(|item| item.health.0).collect();
    assert_eq!(healths, [3]);
}

#[derive(QueryData)]
struct ReadHealth {
    health: &'static Health,
}

/// A generic read-only query: one field per type parameter.
#[derive(QueryData)]
struct Pair<A: Component, B: Component> {
    first: &'static A,
    second: Option<&'static B>,
}

/// A generic query over any query data, with a read-only twin.
#[derive(QueryData)]
#[query_data(mutable)]
struct Tagged<D>
where
    D: QueryData + 'static,
{
    entity: Entity,
    data: D,
}

#[test]
fn generic_derived_queries() {
    let mut world = World::new();
    let a = world.spawn((Health(1), Stunned(2))).id();
    let b = world.spawn(Health(3)).id();

    let mut query = world.query::<Pair<Health, Stunned>>();
    let mut pairs: Vec<(u32, Option<u32>)> = query
        .iter(&world)
        .map(|item: PairItem<'_, '_, Health, Stunned>| (item.first.0, item.second.map(|s| s.0)))
        .collect();
    pairs.sort();
    assert_eq!(pairs, [(1, Some(2)), (3, None)]);

    let mut query = world.query::<Tagged<&mut Health>>();
    for mut item in query.iter_mut(&mut world) {
        let item: &mut TaggedItem<'_, '_, &mut Health> = &mut item;
        item.data.0 += item.entity.index();
    }
    let read: Vec<(Entity, u32)> = query
        .iter(&world)
        .map(|item: TaggedReadOnlyItem<'_, '_, &mut Health>| (item.entity, item.data.0))
        .collect();
    assert_eq!(read.len(), 2);
    assert_eq!(world.get::<Health>(a), Some(&Health(1 + a.index())));
    assert_eq!(world.get::<Health>(b), Some(&Health(3 + b.index())));
    assert_read_only::<TaggedReadOnly<&mut Health>>();
    const { assert!(<Tagged<&Health> as QueryData>::IS_READ_ONLY) };
}

/// Generic queries whose item structs derive `Debug`: the derive must see
/// that each field's item is what the term's impl says (`&T`, `Mut<T>`).
#[derive(QueryData)]
#[query_data(derive(Debug))]
struct ShowPair<A: Component, B: Component> {
    entity: Entity,
    first: &'static A,
    second: Option<&'static B>,
}

/// With derives, a generic term must be query data by the struct's own
/// bounds (`Mutability = Mutable` for `&mut`), as in bevy.
#[derive(QueryData)]
#[query_data(mutable, derive(Debug))]
struct ShowMut<T: Component<Mutability = Mutable>> {
    value: &'static mut T,
    stunned: &'static Stunned,
}

#[test]
fn generic_derived_items_derive_debug() {
    let mut world = World::new();
    let a = world.spawn((Health(1), Stunned(2))).id();
    let mut query = world.query::<ShowPair<Health, Stunned>>();
    let shown = format!("{:?}", query.single(&world).unwrap());
    assert_eq!(
        shown,
        format!("ShowPairItem {{ entity: {a:?}, first: Health(1), second: Some(Stunned(2)) }}")
    );
    let mut query = world.query::<ShowMut<Health>>();
    let item = query.single_mut(&mut world).unwrap();
    assert_eq!(
        format!("{item:?}"),
        format!(
            "ShowMutItem {{ value: {:?}, stunned: Stunned(2) }}",
            item.value
        )
    );
    let read = query.single(&world).unwrap();
    assert_eq!(
        format!("{read:?}"),
        "ShowMutReadOnlyItem { value: Health(1), stunned: Stunned(2) }"
    );
}

/// A tuple struct with a where clause, and a defaulted type parameter.
#[derive(QueryData)]
#[query_data(mutable)]
struct Bump<C>(&'static mut C, Entity)
where
    C: Component;

#[derive(QueryData)]
struct ReadDefault<C: Component = Health> {
    r#type: &'static C,
}

#[derive(QueryFilter)]
struct Having<C>(With<C>)
where
    C: Component;

#[test]
fn where_clauses_defaults_and_raw_identifiers() {
    let mut world = World::new();
    let e = world.spawn((Health(1), Enemy)).id();
    world.spawn(Enemy);
    let mut query = world.query_filtered::<Bump<Health>, Having<Enemy>>();
    for mut item in query.iter_mut(&mut world) {
        item.0 .0 += 1;
        assert_eq!(item.1, e);
    }
    let mut query = world.query::<ReadDefault>();
    let healths: Vec<u32> = query.iter(&world).map(|item| item.r#type.0).collect();
    assert_eq!(healths, [2]);
}

/// Derived queries nest: a field may itself be a derived `QueryData`.
#[derive(QueryData)]
#[query_data(mutable)]
struct Unit {
    mover: Mover,
    health: &'static mut Health,
    stunned: Option<&'static Stunned>,
}

/// A read-only struct may nest the read-only twin of a mutable one.
#[derive(QueryData)]
struct UnitView {
    mover: MoverReadOnly,
    health: Ref<'static, Health>,
}

#[test]
fn nested_derived_queries() {
    let (mut world, [a, b, c], _) = movers();
    world.entity_mut(a).insert(Health(10));
    world.entity_mut(b).insert((Health(20), Stunned(1)));

    let mut query = world.query::<Unit>();
    for mut unit in query.iter_mut(&mut world) {
        if unit.stunned.is_none() {
            unit.mover.pos.x += unit.mover.vel.x;
        }
        unit.health.0 -= 1;
    }
    assert_eq!(world.get::<Position>(a), Some(&pos(1.0, 0.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(10.0, 10.0)));
    assert_eq!(
        world.get::<Position>(c),
        Some(&pos(5.0, 5.0)),
        "c has no Health"
    );
    assert_eq!(world.get::<Health>(b), Some(&Health(19)));

    let mut view = world.query::<UnitView>();
    let mut seen: Vec<(Entity, u32)> = view
        .iter(&world)
        .map(|unit| (unit.mover.entity, unit.health.0))
        .collect();
    seen.sort();
    assert_eq!(seen, [(a, 9), (b, 19)]);

    // The nested item's fields are the nested items.
    let unit = query.get(&world, a).unwrap();
    let _: &MoverReadOnlyItem<'_, '_> = &unit.mover;
    assert_eq!(unit.mover.pos, &pos(1.0, 0.0));
}

/// Table components (`Position`) and a sparse-set one (`Stunned`) in one
/// struct: the query can no longer walk tables, and must walk archetypes.
#[derive(QueryData)]
#[query_data(mutable)]
struct StunnedMover {
    pos: &'static mut Position,
    stunned: &'static mut Stunned,
}

#[test]
fn table_and_sparse_set_components_mixed() {
    const { assert!(<Mover as WorldQuery>::IS_DENSE) };
    const { assert!(!<StunnedMover as WorldQuery>::IS_DENSE) };
    const { assert!(!<StunnedMoverReadOnly as WorldQuery>::IS_DENSE) };

    let (mut world, [a, b, c], still) = movers();
    // `Stunned` lives in a sparse set: `a` and `still` keep their tables
    // (shared with entities without it), so the query walks archetypes.
    world.entity_mut(a).insert(Stunned(2));
    world.entity_mut(still).insert(Stunned(1));
    let mut query = world.query::<StunnedMover>();
    for mut item in query.iter_mut(&mut world) {
        item.pos.y -= 1.0;
        item.stunned.0 -= 1;
    }
    assert_eq!(world.get::<Position>(a), Some(&pos(0.0, -1.0)));
    assert_eq!(world.get::<Position>(still), Some(&pos(7.0, 6.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(10.0, 10.0)));
    assert_eq!(world.get::<Position>(c), Some(&pos(5.0, 5.0)));
    assert_eq!(world.get::<Stunned>(a), Some(&Stunned(1)));
    assert_eq!(world.get::<Stunned>(still), Some(&Stunned(0)));

    // A filter on a sparse-set component: archetypal, but not dense.
    #[derive(QueryFilter)]
    struct IsStunned(With<Stunned>);
    const { assert!(!<IsStunned as WorldQuery>::IS_DENSE) };
    let mut query = world.query_filtered::<Entity, IsStunned>();
    let mut stunned: Vec<Entity> = query.iter(&world).collect();
    stunned.sort();
    assert_eq!(stunned, [a, still]);
}

/// Tuple structs derive too; their items are tuple structs.
#[derive(QueryData)]
#[query_data(mutable)]
struct Kinematics(&'static mut Position, &'static Velocity);

#[derive(QueryFilter)]
struct Moving(With<Velocity>, Without<Enemy>);

/// A unit filter keeps every entity.
#[derive(QueryFilter)]
struct Everything;

#[test]
fn tuple_and_unit_structs() {
    let (mut world, [a, b, _], _) = movers();
    let mut query = world.query_filtered::<Kinematics, Moving>();
    for mut item in query.iter_mut(&mut world) {
        let item: &mut KinematicsItem<'_, '_> = &mut item;
        item.0.x = item.1.x * 100.0;
    }
    assert_eq!(world.get::<Position>(a), Some(&pos(100.0, 0.0)));
    assert_eq!(world.get::<Position>(b), Some(&pos(-100.0, 10.0)));
    let read: Vec<KinematicsReadOnlyItem<'_, '_>> = query.iter(&world).collect();
    assert_eq!(read.len(), 2);

    let mut all = world.query_filtered::<Entity, Everything>();
    assert_eq!(all.iter(&world).count(), 4);
    const { assert!(<Everything as QueryFilter>::IS_ARCHETYPAL) };
}

/// Query data without fields fetches nothing and matches every entity; its
/// item is the struct itself.
#[derive(QueryData, Debug, PartialEq)]
struct Nothing;

#[derive(QueryData, Debug, PartialEq)]
#[query_data(mutable)]
struct NothingNamed {}

/// A filter without fields, written with braces.
#[derive(QueryFilter)]
struct EverythingNamed {}

#[test]
fn structs_without_fields_match_every_entity() {
    let (mut world, _, _) = movers();
    let entities = world.query::<Entity>().iter(&world).count();
    assert!(entities > 0);
    let empty = world.spawn_empty().id();

    let items: Vec<NothingItem<'_, '_>> = world.query::<Nothing>().iter(&world).collect();
    assert_eq!(items.len(), entities + 1);
    assert!(items.iter().all(|item| *item == Nothing));
    const { assert!(<Nothing as QueryData>::IS_READ_ONLY) };

    let mut query = world.query::<(Entity, NothingNamed)>();
    let items: Vec<(Entity, NothingNamedItem<'_, '_>)> = query.iter_mut(&mut world).collect();
    assert_eq!(items.len(), entities + 1);
    assert!(items.contains(&(empty, NothingNamed {})));
    // The read-only item is the read-only twin, itself without fields.
    let read: Vec<NothingNamedReadOnly> = world.query::<NothingNamed>().iter(&world).collect();
    assert_eq!(read.len(), entities + 1);

    let mut filtered = world.query_filtered::<Entity, (EverythingNamed, Everything)>();
    assert_eq!(filtered.iter(&world).count(), entities + 1);
    assert!(filtered.get(&world, empty).is_ok());
}

/// Every kind of query term as a field.
#[derive(QueryData)]
#[query_data(mutable)]
struct Everyone {
    entity: Entity,
    health: Option<&'static mut Health>,
    is_enemy: Has<Enemy>,
    any: AnyOf<(&'static Velocity, &'static Stunned)>,
    pos: Ref<'static, Position>,
    pair: (Entity, Option<&'static Stunned>),
}

#[derive(QueryFilter)]
struct Interesting {
    _changed: Or<(Changed<Position>, Added<Health>)>,
}

#[test]
fn every_kind_of_term_and_change_detection() {
    let (mut world, [a, b, c], _) = movers();
    world.entity_mut(b).insert(Stunned(4));
    world.clear_trackers();
    world.entity_mut(a).insert(Health(1));

    let mut query = world.query::<Everyone>();
    for mut item in query.iter_mut(&mut world) {
        assert_eq!(item.entity, item.pair.0);
        assert_eq!(item.is_enemy, item.entity == c);
        let (velocity, stunned) = item.any;
        assert!(velocity.is_some() || stunned.is_some());
        assert_eq!(stunned.map(|s| s.0), item.pair.1.map(|s| s.0));
        if let Some(health) = &mut item.health {
            health.0 += 1;
        }
        assert!(!item.pos.is_changed());
    }
    assert_eq!(world.get::<Health>(a), Some(&Health(2)));
    const { assert!(!<Interesting as QueryFilter>::IS_ARCHETYPAL) };

    let mut interesting = world.query_filtered::<Entity, Interesting>();
    assert_eq!(interesting.iter(&world).collect::<Vec<_>>(), [a]);
    world.clear_trackers();
    assert_eq!(interesting.iter(&world).count(), 0);
    let mut movers = world.query::<Mover>();
    let mover = movers.get_mut(&mut world, b).unwrap();
    let mut moved = mover.pos;
    moved.x = -3.0;
    assert_eq!(interesting.iter(&world).collect::<Vec<_>>(), [b]);
}

#[test]
fn single_get_many_and_internal_iteration() {
    let (mut world, [a, b, c], _) = movers();
    let mut query = world.query_filtered::<Mover, Without<Enemy>>();
    let [mut first, mut second] = query.get_many_mut(&mut world, [a, b]).unwrap();
    std::mem::swap(&mut *first.pos, &mut *second.pos);
    assert_eq!(world.get::<Position>(a), Some(&pos(10.0, 10.0)));
    assert!(query.get(&world, c).is_err());

    let mut enemy = world.query_filtered::<Mover, With<Enemy>>();
    assert_eq!(enemy.single(&world).unwrap().entity, c);
    enemy.single_mut(&mut world).unwrap().pos.x = 0.0;
    assert_eq!(world.get::<Position>(c), Some(&pos(0.0, 5.0)));

    let mut sum = 0.0;
    query.for_each(&world, |mover| sum += mover.vel.x);
    assert_eq!(sum, 0.0);
    query.for_each_mut(&mut world, |mut mover| mover.pos.y = 1.0);
    assert_eq!(world.get::<Position>(b).map(|p| p.y), Some(1.0));
    assert_eq!(query.count(&world), 2);
}

#[test]
#[should_panic(expected = "Position")]
fn conflicting_fields_panic_naming_the_component() {
    #[derive(QueryData)]
    #[query_data(mutable)]
    struct Conflict {
        writes: &'static mut Position,
        reads: &'static Position,
    }
    let mut world = World::new();
    let _ = world.query::<Conflict>();
}

#[test]
fn debug_derive_on_items() {
    let (mut world, [a, ..], _) = movers();
    let mut query = world.query::<Mover>();
    let item = query.get(&world, a).unwrap();
    let text = format!("{item:?}");
    assert!(text.starts_with("MoverReadOnlyItem"), "{text}");
    assert!(text.contains("pos: Position { x: 0.0, y: 0.0 }"), "{text}");
    let item = query.get_mut(&mut world, a).unwrap();
    let text = format!("{item:?}");
    assert!(text.starts_with("MoverItem"), "{text}");
    assert!(
        text.contains("pos: Mut(Position { x: 0.0, y: 0.0 })"),
        "{text}"
    );
}

/// `#[ecs(crate = ..)]` names the runtime: here the facade by a path
/// without the leading `::`, and through a module that re-exports it.
mod renamed {
    pub mod engine {
        pub use ecs::*;
    }

    use ecs::prelude::*;
    use ecs::query::{QueryData, QueryFilter, With};

    use super::{Enemy, Health};

    #[derive(QueryData)]
    #[query_data(mutable)]
    #[ecs(crate = ecs)]
    pub struct Hurt {
        pub health: &'static mut Health,
    }

    #[derive(QueryFilter)]
    #[ecs(crate = self::engine)]
    pub struct Hostile(With<Enemy>);

    #[test]
    fn crate_path() {
        let mut world = World::new();
        let enemy = world.spawn((Enemy, Health(5))).id();
        world.spawn(Health(5));
        let mut query = world.query_filtered::<Hurt, Hostile>();
        for mut hurt in query.iter_mut(&mut world) {
            hurt.health.0 -= 5;
        }
        assert_eq!(world.get::<Health>(enemy), Some(&Health(0)));
        assert_eq!(
            world
                .query::<&Health>()
                .iter(&world)
                .map(|h| h.0)
                .sum::<u32>(),
            5
        );
    }
}

/// A dense derived query: it caches its fields' column slots in field
/// order, as the tuple of its field types would.
#[derive(QueryData)]
#[query_data(mutable)]
struct Cached {
    health: Option<&'static mut Health>,
    mover: Mover,
    enemy: Has<Enemy>,
}

#[derive(QueryFilter)]
struct CachedFilter {
    _picked: Or<(With<Enemy>, Changed<Velocity>)>,
    _alive: Without<Dead>,
}

#[test]
fn derived_queries_reach_their_columns_in_every_table() {
    type AsTuple = (
        Option<&'static mut Health>,
        (Entity, &'static mut Position, &'static Velocity),
        Has<Enemy>,
    );
    const {
        assert!(<Cached as WorldQuery>::TABLE_COLUMNS == <AsTuple as WorldQuery>::TABLE_COLUMNS);
        assert!(<Cached as WorldQuery>::TABLE_COLUMNS == 5);
        assert!(<CachedReadOnly as WorldQuery>::TABLE_COLUMNS == 5);
        // A match slot per `Or` branch, and `Changed`'s column.
        assert!(<CachedFilter as WorldQuery>::TABLE_COLUMNS == 3);
    };

    let mut world = World::new();
    // Ids in an order that moves each component's column around between
    // tables (columns are sorted by id).
    world.register_component::<Velocity>();
    world.register_component::<Health>();
    world.register_component::<Enemy>();
    world.register_component::<Position>();
    world.register_component::<Dead>();
    let mut query = world.query_filtered::<Cached, CachedFilter>();
    // (entity, health, enemy, dead), over 8 tables made after the state.
    let mut model = Vec::new();
    for i in 0..24u32 {
        let (health, enemy, dead) = (i % 2 == 0, i % 4 < 2, i % 8 < 4);
        let mut entity = world.spawn((pos(i as f32, 0.0), vel(1.0, i as f32)));
        if health {
            entity.insert(Health(i));
        }
        if enemy {
            entity.insert(Enemy);
        }
        if dead {
            entity.insert(Dead);
        }
        model.push((entity.id(), health, enemy, dead));
    }

    // Every `Velocity` is new to this state: all the living pass.
    let mut seen = Vec::new();
    query.for_each_mut(&mut world, |mut item| {
        item.mover.pos.x += item.mover.vel.x;
        item.mover.pos.y = item.mover.vel.y;
        if let Some(health) = &mut item.health {
            health.0 += 100;
        }
        seen.push((item.mover.entity, item.enemy));
    });
    seen.sort();
    let living: Vec<_> = model
        .iter()
        .filter(|m| !m.3)
        .map(|&(e, _, enemy, _)| (e, enemy))
        .collect();
    assert_eq!(seen, living);
    for (i, &(e, health, _, dead)) in model.iter().enumerate() {
        let i = i as f32;
        let moved = if dead { pos(i, 0.0) } else { pos(i + 1.0, i) };
        assert_eq!(world.get::<Position>(e), Some(&moved), "entity {e}");
        assert_eq!(world.get::<Velocity>(e), Some(&vel(1.0, i)), "entity {e}");
        let want = health.then_some(Health(i as u32 + if dead { 0 } else { 100 }));
        assert_eq!(world.get::<Health>(e).copied(), want, "entity {e}");
    }

    // Now only enemies and a changed `Velocity` pass.
    world.clear_trackers();
    let calm = model.iter().find(|m| !m.2 && !m.3).unwrap().0;
    world.get_mut::<Velocity>(calm).unwrap().x = 2.0;
    let mut picked: Vec<Entity> = query.iter(&world).map(|item| item.mover.entity).collect();
    picked.sort();
    let mut want: Vec<Entity> = model
        .iter()
        .filter(|m| !m.3 && (m.2 || m.0 == calm))
        .map(|m| m.0)
        .collect();
    want.sort();
    assert_eq!(picked, want);
}

/// `fold`/`for_each` walk a derived query through its fields' scoped
/// fetches (`WorldQuery::scope_table`, the tuple of the field types): with
/// nesting, two written fields and a walk that starts mid-table (after
/// `next`), each value and changed tick lands on its own entity.
#[test]
fn derived_queries_walk_scoped_fields_onto_the_right_rows() {
    for consumed in 0..=12 {
        let mut world = World::new();
        let mut model = Vec::new();
        for i in 0..6u32 {
            // Two tables: with and without `Enemy`.
            let e = world
                .spawn((pos(i as f32, 0.0), vel(1.0, 0.0), Health(i)))
                .id();
            let f = world
                .spawn((
                    pos(10.0 + i as f32, 0.0),
                    vel(1.0, 0.0),
                    Health(10 + i),
                    Enemy,
                ))
                .id();
            model.extend([(e, i), (f, 10 + i)]);
        }
        world.clear_trackers();
        let mut query = world.query::<Unit>();
        let step = |mut unit: UnitItem<'_, '_>| {
            // Position written on every row, Health on odd ones only.
            unit.mover.pos.y = unit.mover.pos.x + unit.mover.vel.x;
            if unit.health.0 % 2 == 1 {
                unit.health.0 += 100;
            }
        };
        let mut iter = query.iter_mut(&mut world);
        iter.by_ref().take(consumed).for_each(step);
        iter.for_each(step);

        for &(entity, i) in &model {
            let p = world.get::<Position>(entity).unwrap();
            assert_eq!(p.x, i as f32, "{consumed} taken by next()");
            assert_eq!(p.y, i as f32 + 1.0, "{consumed} taken by next()");
            let expected = if i % 2 == 1 { i + 100 } else { i };
            assert_eq!(world.get::<Health>(entity), Some(&Health(expected)));
        }
        let mut changed_health: Vec<Entity> = world
            .query_filtered::<Entity, Changed<Health>>()
            .iter(&world)
            .collect();
        changed_health.sort();
        let mut odd: Vec<Entity> = model
            .iter()
            .filter(|(_, i)| i % 2 == 1)
            .map(|&(e, _)| e)
            .collect();
        odd.sort();
        assert_eq!(changed_health, odd, "{consumed} taken by next()");
        assert_eq!(
            world
                .query_filtered::<(), Changed<Position>>()
                .iter(&world)
                .count(),
            model.len()
        );
    }
}

/// More fields than tuples have elements (16): the derive scopes its fields
/// as nested pairs, so any number works.
#[derive(QueryData)]
#[query_data(mutable)]
struct Wide {
    e0: Entity,
    e1: Entity,
    e2: Entity,
    e3: Entity,
    e4: Entity,
    e5: Entity,
    e6: Entity,
    e7: Entity,
    v0: &'static Velocity,
    v1: &'static Velocity,
    v2: &'static Velocity,
    v3: &'static Velocity,
    v4: &'static Velocity,
    v5: &'static Velocity,
    v6: &'static Velocity,
    pos: &'static mut Position,
    health: &'static mut Health,
}

#[test]
fn derived_queries_with_more_fields_than_a_tuple() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..5)
        .map(|i| {
            world
                .spawn((pos(i as f32, 0.0), vel(1.0, 2.0), Health(i)))
                .id()
        })
        .collect();
    let mut query = world.query::<Wide>();
    query.for_each_mut(&mut world, |mut w| {
        assert!([w.e1, w.e2, w.e3, w.e4, w.e5, w.e6, w.e7]
            .iter()
            .all(|&e| e == w.e0));
        let v = [w.v0, w.v1, w.v2, w.v3, w.v4, w.v5, w.v6];
        assert!(v.iter().all(|&&v| v == vel(1.0, 2.0)));
        w.pos.y = w.pos.x + w.v6.y;
        w.health.0 += 10;
    });
    for (i, &e) in entities.iter().enumerate() {
        assert_eq!(
            world.get::<Position>(e),
            Some(&pos(i as f32, i as f32 + 2.0))
        );
        assert_eq!(world.get::<Health>(e), Some(&Health(i as u32 + 10)));
    }
}

/// bevy's pattern for methods on derived items: `impl<'w, 's>` blocks on
/// the two-lifetime item structs, called from a system's loop and through
/// `QueryItem`, and items destructured field by field.
#[test]
fn item_structs_take_methods_with_both_lifetimes_as_in_bevy() {
    #[derive(Component)]
    struct Buff(u32);

    #[derive(QueryData)]
    #[query_data(mutable)]
    struct HealthQuery {
        health: &'static mut Health,
        buff: Option<&'static mut Buff>,
    }

    impl<'w, 's> HealthQueryItem<'w, 's> {
        fn damage(&mut self, value: u32) {
            self.health.0 = self.health.0.saturating_sub(value);
        }

        fn total(&self) -> u32 {
            self.health.0 + self.buff.as_deref().map_or(0, |b| b.0)
        }
    }

    impl<'w, 's> HealthQueryReadOnlyItem<'w, 's> {
        fn total(&self) -> u32 {
            self.health.0 + self.buff.map_or(0, |b| b.0)
        }
    }

    fn heal(item: &mut ecs::query::QueryItem<'_, '_, HealthQuery>) {
        item.health.0 += 1;
    }

    let mut world = World::new();
    let a = world.spawn((Health(10), Buff(5))).id();
    let b = world.spawn(Health(3)).id();
    world
        .run_system_once(|mut query: Query<HealthQuery>| {
            for mut item in &mut query {
                item.damage(4);
                heal(&mut item);
            }
            let totals: Vec<u32> = query.iter().map(|item| item.total()).collect();
            assert_eq!(totals.iter().sum::<u32>(), 7 + 5 + 1);
            for item in query.iter_mut() {
                let HealthQueryItem { health, buff } = item;
                assert!(health.0 > 0 && buff.is_none_or(|b| b.0 == 5));
            }
        })
        .unwrap();
    assert_eq!(world.get::<Health>(a), Some(&Health(7)));
    assert_eq!(world.get::<Health>(b), Some(&Health(1)));
    let mut query = world.query::<HealthQuery>();
    let item = query.get_mut(&mut world, a).unwrap();
    assert_eq!(item.total(), 12);
}
