//! Behaviour of `#[derive(Component)]`, `#[derive(Bundle)]` and
//! `#[derive(Resource)]`, end to end through the `World`.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::components::{Position, Velocity};
use ecs::prelude::*;

#[derive(Component, Debug, Clone, Copy, PartialEq, Default)]
struct Player;

#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "Table")]
struct Named(String);

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
enum Team {
    Red,
    Blue,
}

#[derive(Component, Debug, Clone, Copy, PartialEq)]
#[component(storage = "SparseSet")]
struct Stunned;

#[derive(Component, Debug, Clone, PartialEq)]
struct Tagged<T: Send + Sync + 'static>(T);

#[derive(Component, Debug, Clone, PartialEq)]
#[component(storage = "SparseSet")]
struct Labelled<T>
where
    T: Clone + Send + Sync + 'static,
{
    label: T,
}

#[derive(Bundle, Debug, Clone, PartialEq)]
struct PlayerBundle {
    pos: Position,
    vel: Velocity,
    marker: (Player, Named),
}

/// A tuple struct nesting a derived bundle.
#[derive(Bundle, Debug, Clone, PartialEq)]
struct TeamPlayer(PlayerBundle, Team);

#[derive(Bundle, Debug, PartialEq)]
struct Empty;

#[derive(Bundle, Debug, PartialEq)]
struct EmptyNamed {}

#[derive(Bundle, Debug, PartialEq)]
struct WithIgnored {
    pos: Position,
    #[bundle(ignore)]
    note: String,
    #[bundle(ignore)]
    player: Player,
    team: Team,
}

#[derive(Bundle, Debug, PartialEq)]
struct TupleWithIgnored(
    #[bundle(ignore)] u32,
    Position,
    #[bundle(ignore)] String,
    Stunned,
);

#[derive(Bundle, Debug, PartialEq)]
struct Generic<C: Component, B: Bundle> {
    component: C,
    bundle: B,
}

#[derive(Component, Debug, PartialEq)]
#[ecs(crate = ecs)]
struct CratePathComponent(u8);

#[derive(Bundle, Debug, PartialEq)]
#[ecs(crate = ::ecs)]
struct CratePathBundle {
    component: CratePathComponent,
}

#[derive(Resource, Debug, PartialEq)]
#[ecs(crate = "ecs")]
struct CratePathResource(u8);

#[derive(Resource, Debug, Default, PartialEq)]
struct Time {
    delta: f32,
}

#[derive(Resource, Debug, PartialEq)]
struct Setting<T: Send + Sync + 'static>(T);

/// Inserted whole, never taken back: its ignored field need not be
/// `Default`, and a field may itself be a bundle that cannot be taken.
#[derive(Bundle)]
#[bundle(ignore_from_components)]
struct InsertOnly {
    pos: Position,
    #[bundle(ignore)]
    _token: NotDefault,
}

#[derive(Bundle)]
#[bundle(ignore_from_components)]
struct InsertOnlyOuter(InsertOnly, Player);

struct NotDefault;

/// No bounds written: the derive bounds `Self` by `Send + Sync + 'static`.
#[derive(Component, Debug, PartialEq)]
struct Wrapper<T>(T);

#[derive(Resource, Debug, PartialEq)]
struct Config<T>(T);

/// A where clause of the user's own, kept beside the derive's bound.
#[derive(Component, Resource, Debug, PartialEq)]
#[component(storage = "SparseSet")]
struct Limited<T, const N: usize>([T; N])
where
    T: Copy;

/// Whether `T` implements `Component`, seen through autoref: the inherent
/// method on `Probe<T>` exists only where `T: Component`, otherwise the
/// trait method on `&Probe<T>` answers.
struct Probe<T>(std::marker::PhantomData<T>);

impl<T: Component> Probe<T> {
    fn is_component(&self) -> bool {
        true
    }
}

trait NotComponent {
    fn is_component(&self) -> bool {
        false
    }
}

impl<T> NotComponent for &Probe<T> {}

fn storage_of<T: Component>(world: &World) -> StorageType {
    let id = world
        .component_id::<T>()
        .expect("component registered by spawn");
    world
        .components()
        .get_info(id)
        .expect("info of a registered component")
        .storage_type()
}

fn player_bundle() -> PlayerBundle {
    PlayerBundle {
        pos: Position { x: 1.0, y: 2.0 },
        vel: Velocity(3.0, 4.0),
        marker: (Player, Named("ada".into())),
    }
}

#[test]
fn components_of_every_shape_with_both_storages() {
    let mut world = World::new();
    let e = world
        .spawn((
            Position { x: 1.0, y: 2.0 },
            Velocity(3.0, 4.0),
            Player,
            Named("ada".into()),
            Team::Blue,
            Tagged(7u64),
            Labelled { label: "x" },
        ))
        .id();

    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(3.0, 4.0)));
    assert_eq!(world.get::<Player>(e), Some(&Player));
    assert_eq!(world.get::<Named>(e), Some(&Named("ada".into())));
    assert_eq!(world.get::<Team>(e), Some(&Team::Blue));
    assert_eq!(world.get::<Tagged<u64>>(e), Some(&Tagged(7)));
    assert_eq!(world.get::<Labelled<&str>>(e).map(|l| l.label), Some("x"));

    assert_eq!(storage_of::<Position>(&world), StorageType::Table);
    assert_eq!(storage_of::<Velocity>(&world), StorageType::SparseSet);
    assert_eq!(storage_of::<Player>(&world), StorageType::Table);
    assert_eq!(storage_of::<Named>(&world), StorageType::Table);
    assert_eq!(storage_of::<Team>(&world), StorageType::SparseSet);
    assert_eq!(storage_of::<Tagged<u64>>(&world), StorageType::Table);
    assert_eq!(storage_of::<Labelled<&str>>(&world), StorageType::SparseSet);
}

#[test]
fn storage_constant_follows_the_attribute() {
    assert_eq!(<Position as Component>::STORAGE_TYPE, StorageType::Table);
    assert_eq!(<Named as Component>::STORAGE_TYPE, StorageType::Table);
    assert_eq!(
        <Velocity as Component>::STORAGE_TYPE,
        StorageType::SparseSet
    );
    assert_eq!(<Team as Component>::STORAGE_TYPE, StorageType::SparseSet);
    assert_eq!(
        <Labelled<u8> as Component>::STORAGE_TYPE,
        StorageType::SparseSet
    );
}

#[test]
fn generic_components_are_distinct_per_argument() {
    let mut world = World::new();
    let e = world.spawn((Tagged(1u8), Tagged(2u16))).id();
    assert_eq!(world.get::<Tagged<u8>>(e), Some(&Tagged(1)));
    assert_eq!(world.get::<Tagged<u16>>(e), Some(&Tagged(2)));
    assert_ne!(
        world.component_id::<Tagged<u8>>(),
        world.component_id::<Tagged<u16>>()
    );
}

#[test]
fn nested_bundle_spawns_every_component() {
    let mut world = World::new();
    let e = world.spawn(player_bundle()).id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(3.0, 4.0)));
    assert_eq!(world.get::<Player>(e), Some(&Player));
    assert_eq!(world.get::<Named>(e), Some(&Named("ada".into())));
}

#[test]
fn nested_bundle_takes_back_whole() {
    let mut world = World::new();
    let bundle = TeamPlayer(player_bundle(), Team::Red);
    let e = world.spawn(bundle.clone()).id();

    assert_eq!(world.entity_mut(e).take::<TeamPlayer>(), Some(bundle));
    assert!(world.get::<Position>(e).is_none());
    assert!(world.get::<Velocity>(e).is_none());
    assert!(world.get::<Named>(e).is_none());
    assert!(world.get::<Team>(e).is_none());
    // All or nothing: nothing left to take.
    assert_eq!(world.entity_mut(e).take::<TeamPlayer>(), None);
}

#[test]
fn take_of_a_partial_bundle_takes_nothing() {
    let mut world = World::new();
    let e = world.spawn((Position { x: 0.0, y: 0.0 }, Player)).id();
    assert_eq!(world.entity_mut(e).take::<PlayerBundle>(), None);
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 0.0, y: 0.0 }));
    assert_eq!(world.get::<Player>(e), Some(&Player));
}

#[test]
fn derived_bundle_inserts_and_removes() {
    let mut world = World::new();
    let e = world.spawn(Stunned).id();
    world.entity_mut(e).insert(player_bundle());
    assert_eq!(world.get::<Named>(e), Some(&Named("ada".into())));
    assert_eq!(world.get::<Velocity>(e), Some(&Velocity(3.0, 4.0)));

    world.entity_mut(e).remove::<PlayerBundle>();
    assert!(world.get::<Position>(e).is_none());
    assert!(world.get::<Velocity>(e).is_none());
    assert!(world.get::<Player>(e).is_none());
    assert!(world.get::<Named>(e).is_none());
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned));
}

#[test]
fn empty_bundles_spawn_entities_without_components() {
    let mut world = World::new();
    let a = world.spawn(Empty).id();
    let b = world.spawn(EmptyNamed {}).id();
    assert_ne!(a, b);
    assert_eq!(world.entity_mut(a).take::<Empty>(), Some(Empty));
    assert_eq!(
        world.entity_mut(b).take::<EmptyNamed>(),
        Some(EmptyNamed {})
    );
}

#[test]
fn ignored_fields_are_left_out_and_rebuilt_by_default() {
    let mut world = World::new();
    let e = world
        .spawn(WithIgnored {
            pos: Position { x: 5.0, y: 6.0 },
            note: "not a component".into(),
            player: Player,
            team: Team::Red,
        })
        .id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 5.0, y: 6.0 }));
    assert_eq!(world.get::<Team>(e), Some(&Team::Red));
    // `Player` is a component, but the field holding it is ignored.
    assert!(world.get::<Player>(e).is_none());

    assert_eq!(
        world.entity_mut(e).take::<WithIgnored>(),
        Some(WithIgnored {
            pos: Position { x: 5.0, y: 6.0 },
            note: String::new(),
            player: Player,
            team: Team::Red,
        })
    );
}

#[test]
fn ignored_fields_of_tuple_structs() {
    let mut world = World::new();
    let e = world
        .spawn(TupleWithIgnored(
            9,
            Position { x: 1.0, y: 1.0 },
            "dropped".into(),
            Stunned,
        ))
        .id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 1.0 }));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned));
    assert_eq!(
        world.entity_mut(e).take::<TupleWithIgnored>(),
        Some(TupleWithIgnored(
            0,
            Position { x: 1.0, y: 1.0 },
            String::new(),
            Stunned
        ))
    );
}

/// Counts its drops, to check that each value is dropped exactly once.
#[derive(Component, Default)]
struct DropCounter(Option<Arc<AtomicUsize>>);

impl Drop for DropCounter {
    fn drop(&mut self) {
        if let Some(count) = &self.0 {
            count.fetch_add(1, Ordering::SeqCst);
        }
    }
}

#[derive(Bundle)]
struct Counted {
    kept: DropCounter,
    #[bundle(ignore)]
    ignored: DropCounter,
}

#[test]
fn every_field_is_dropped_exactly_once() {
    let kept = Arc::new(AtomicUsize::new(0));
    let ignored = Arc::new(AtomicUsize::new(0));
    let mut world = World::new();
    let e = world
        .spawn(Counted {
            kept: DropCounter(Some(kept.clone())),
            ignored: DropCounter(Some(ignored.clone())),
        })
        .id();
    // The ignored field is dropped when the bundle is inserted; the kept one
    // now lives in the world.
    assert_eq!(ignored.load(Ordering::SeqCst), 1);
    assert_eq!(kept.load(Ordering::SeqCst), 0);

    let taken = world.entity_mut(e).take::<Counted>().expect("all present");
    assert_eq!(kept.load(Ordering::SeqCst), 0);
    assert!(taken.ignored.0.is_none(), "rebuilt with Default");
    drop(taken);
    assert_eq!(kept.load(Ordering::SeqCst), 1);
    assert_eq!(ignored.load(Ordering::SeqCst), 1);

    world.spawn(Counted {
        kept: DropCounter(Some(kept.clone())),
        ignored: DropCounter(None),
    });
    drop(world);
    assert_eq!(kept.load(Ordering::SeqCst), 2);
}

#[test]
fn generic_bundles() {
    let mut world = World::new();
    let e = world
        .spawn(Generic {
            component: Tagged('a'),
            bundle: (
                Player,
                Generic {
                    component: Stunned,
                    bundle: Empty,
                },
            ),
        })
        .id();
    assert_eq!(world.get::<Tagged<char>>(e), Some(&Tagged('a')));
    assert_eq!(world.get::<Player>(e), Some(&Player));
    assert_eq!(world.get::<Stunned>(e), Some(&Stunned));
}

#[test]
fn resources_derive() {
    let mut world = World::new();
    world.insert_resource(Time { delta: 0.25 });
    world.insert_resource(Setting(3u32));
    world.insert_resource(Setting("name"));
    assert_eq!(world.resource::<Time>(), &Time { delta: 0.25 });
    assert_eq!(world.resource::<Setting<u32>>(), &Setting(3));
    assert_eq!(world.resource::<Setting<&str>>(), &Setting("name"));
}

#[test]
fn ignore_from_components_bundles_insert_and_remove() {
    let mut world = World::new();
    let e = world
        .spawn(InsertOnlyOuter(
            InsertOnly {
                pos: Position { x: 1.0, y: 2.0 },
                _token: NotDefault,
            },
            Player,
        ))
        .id();
    assert_eq!(world.get::<Position>(e), Some(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(world.get::<Player>(e), Some(&Player));
    world.entity_mut(e).remove::<InsertOnly>();
    assert!(world.get::<Position>(e).is_none());
    world.entity_mut(e).remove::<InsertOnlyOuter>();
    assert!(world.get::<Player>(e).is_none());
    // Its components can still be taken one by one.
    world.entity_mut(e).insert(InsertOnly {
        pos: Position { x: 3.0, y: 4.0 },
        _token: NotDefault,
    });
    assert_eq!(
        world.entity_mut(e).take::<Position>(),
        Some(Position { x: 3.0, y: 4.0 })
    );
}

#[test]
fn generics_need_no_bounds_of_their_own() {
    let mut world = World::new();
    let e = world.spawn((Wrapper(1u8), Wrapper("one"))).id();
    assert_eq!(world.get::<Wrapper<u8>>(e), Some(&Wrapper(1)));
    assert_eq!(world.get::<Wrapper<&str>>(e), Some(&Wrapper("one")));
    world.insert_resource(Config(vec![1, 2]));
    world.insert_resource(Config(0.5f32));
    assert_eq!(world.resource::<Config<Vec<i32>>>(), &Config(vec![1, 2]));
    assert_eq!(world.resource::<Config<f32>>(), &Config(0.5));

    let e = world.spawn(Limited([1u16, 2])).id();
    assert_eq!(world.get::<Limited<u16, 2>>(e), Some(&Limited([1, 2])));
    assert_eq!(
        storage_of::<Limited<u16, 2>>(&world),
        StorageType::SparseSet
    );
    world.insert_resource(Limited([3u8]));
    assert_eq!(world.resource::<Limited<u8, 1>>(), &Limited([3]));
}

#[test]
fn generic_impls_apply_only_where_the_parameters_are_send_sync_static() {
    use std::marker::PhantomData;
    use std::rc::Rc;
    assert!(Probe::<Wrapper<u8>>(PhantomData).is_component());
    assert!(!(&Probe::<Wrapper<Rc<u8>>>(PhantomData)).is_component());
    assert!(!(&Probe::<Wrapper<std::cell::Cell<u8>>>(PhantomData)).is_component());
}

#[test]
fn crate_path_attribute_is_accepted() {
    let mut world = World::new();
    let e = world
        .spawn(CratePathBundle {
            component: CratePathComponent(4),
        })
        .id();
    assert_eq!(
        world.get::<CratePathComponent>(e),
        Some(&CratePathComponent(4))
    );
    world.insert_resource(CratePathResource(5));
    assert_eq!(world.resource::<CratePathResource>(), &CratePathResource(5));
}

/// Generated code names everything by absolute path, so it compiles in a
/// module that shadows the names it uses.
mod shadowed {
    #![allow(dead_code, non_camel_case_types)]

    use ecs::prelude::*;

    struct Option;
    struct Default;
    struct Sized;
    struct FnMut;
    struct u8;
    mod core {}
    mod std {}

    #[derive(Component)]
    pub struct Shadowed(pub i32);

    #[derive(Bundle)]
    pub struct ShadowedBundle {
        pub shadowed: Shadowed,
        #[bundle(ignore)]
        pub note: ::std::string::String,
    }

    #[derive(Resource)]
    pub struct ShadowedResource;
}

#[test]
fn derives_compile_in_a_module_that_shadows_prelude_names() {
    let mut world = World::new();
    let e = world
        .spawn(shadowed::ShadowedBundle {
            shadowed: shadowed::Shadowed(3),
            note: String::new(),
        })
        .id();
    assert_eq!(world.get::<shadowed::Shadowed>(e).map(|s| s.0), Some(3));
    world.insert_resource(shadowed::ShadowedResource);
}
