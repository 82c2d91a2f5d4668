//! Required components registered at run time
//! (`World::register_required_components` and friends).

mod common;

use common::panics::expect_panic;
use ecs::component::RequiredComponentsError;
use ecs::prelude::*;

#[derive(Component)]
struct A;

#[derive(Component, Default, Debug, PartialEq)]
struct B(usize);

#[derive(Component, Default, Debug, PartialEq)]
struct C(u32);

#[derive(Component, Default, Debug, PartialEq)]
struct D(u32);

#[derive(Component, Default, Debug, PartialEq)]
struct X(u32);

#[test]
fn registered_requirements_are_inserted_transitively() {
    let mut world = World::new();
    world.register_required_components::<A, B>();
    world.register_required_components_with::<B, C>(|| C(2));
    let e = world.spawn(A).id();
    assert_eq!(world.get::<B>(e), Some(&B(0)));
    assert_eq!(world.get::<C>(e), Some(&C(2)));

    // A value the caller gives wins.
    let e = world.spawn((A, C(9))).id();
    assert_eq!(world.get::<C>(e), Some(&C(9)));
    world.check_integrity().unwrap();
}

#[test]
fn a_direct_requirement_overrides_an_inherited_one() {
    let mut world = World::new();
    world.register_required_components::<A, B>();
    world.register_required_components_with::<B, C>(|| C(1));
    world.register_required_components_with::<A, C>(|| C(2));
    let e = world.spawn(A).id();
    assert_eq!(world.get::<B>(e), Some(&B(0)));
    assert_eq!(world.get::<C>(e), Some(&C(2)));

    // The order of registration does not matter for a direct one.
    let mut world = World::new();
    world.register_required_components_with::<A, C>(|| C(2));
    world.register_required_components::<A, B>();
    world.register_required_components_with::<B, C>(|| C(1));
    let e = world.spawn(A).id();
    assert_eq!(world.get::<C>(e), Some(&C(2)));
    let e = world.spawn(B(5)).id();
    assert_eq!(world.get::<C>(e), Some(&C(1)));
}

#[test]
fn inherited_clashes_resolve_depth_first_in_registration_order() {
    // A requires B then C; B requires D requires X(1); C requires X(2).
    // Depth-first, B's tree comes first, so X(1) wins although X(2) is
    // nearer.
    let mut world = World::new();
    world.register_required_components::<A, B>();
    world.register_required_components::<A, C>();
    world.register_required_components::<B, D>();
    world.register_required_components_with::<D, X>(|| X(1));
    world.register_required_components_with::<C, X>(|| X(2));
    let e = world.spawn(A).id();
    assert_eq!(world.get::<X>(e), Some(&X(1)));
    assert!(world.entity(e).contains::<D>());
}

#[test]
fn requirements_added_below_reach_existing_requirers() {
    // A requires B before B requires C: A inherits C.
    let mut world = World::new();
    world.register_required_components::<A, B>();
    world.register_required_components_with::<B, C>(|| C(3));
    world.register_required_components_with::<C, D>(|| D(4));
    let e = world.spawn(A).id();
    assert_eq!(world.get::<C>(e), Some(&C(3)));
    assert_eq!(world.get::<D>(e), Some(&D(4)));
    let a = world.component_id::<A>().unwrap();
    let required: Vec<_> = world
        .components()
        .get_info(a)
        .unwrap()
        .required_components()
        .iter()
        .map(|r| r.id)
        .collect();
    let ids = [
        world.component_id::<D>().unwrap(),
        world.component_id::<C>().unwrap(),
        world.component_id::<B>().unwrap(),
    ];
    // Depth-first: every component comes after the ones it requires.
    assert_eq!(required, ids);
}

#[test]
fn requiring_a_component_twice_directly_is_an_error() {
    let mut world = World::new();
    world.register_required_components::<A, B>();
    let a = world.component_id::<A>().unwrap();
    let b = world.component_id::<B>().unwrap();
    let error = world
        .try_register_required_components::<A, B>()
        .unwrap_err();
    assert_eq!(error, RequiredComponentsError::DuplicateRegistration(a, b));
    let text = error.describe(world.components());
    assert!(text.contains(std::any::type_name::<A>()), "{text}");
    assert!(text.contains(std::any::type_name::<B>()), "{text}");

    // Indirectly required already is fine.
    world.register_required_components::<B, C>();
    world.try_register_required_components::<A, C>().unwrap();
}

#[test]
fn a_cycle_is_an_error() {
    let mut world = World::new();
    world.register_required_components::<B, C>();
    world.register_required_components::<C, D>();
    let b = world.component_id::<B>().unwrap();
    let d = world.component_id::<D>().unwrap();
    assert_eq!(
        world.try_register_required_components::<D, B>(),
        Err(RequiredComponentsError::CyclicRequirement(d, b))
    );
    assert!(matches!(
        world.try_register_required_components::<B, B>(),
        Err(RequiredComponentsError::CyclicRequirement(..))
    ));
    // Nothing was half-registered.
    let e = world.spawn(B(1)).id();
    assert_eq!(world.get::<D>(e), Some(&D(0)));
    world.check_integrity().unwrap();
}

#[test]
fn registering_after_an_archetype_exists_is_an_error() {
    let mut world = World::new();
    world.spawn(A);
    let a = world.component_id::<A>().unwrap();
    assert_eq!(
        world.try_register_required_components::<A, B>(),
        Err(RequiredComponentsError::ArchetypeExists(a))
    );
    let message = expect_panic(|| world.register_required_components::<A, B>());
    assert!(message.contains("already exists"), "{message}");
    assert!(message.contains(std::any::type_name::<A>()), "{message}");

    // A requirer in use put the requiree in an archetype too.
    let mut world = World::new();
    world.register_required_components::<B, C>();
    world.spawn(B(1));
    let c = world.component_id::<C>().unwrap();
    assert_eq!(
        world.try_register_required_components::<C, D>(),
        Err(RequiredComponentsError::ArchetypeExists(c))
    );
    // An archetype without any of them does not matter.
    world.spawn(X(1));
    world.register_required_components::<A, X>();
}

#[test]
fn runtime_requirements_combine_with_derived_ones() {
    #[derive(Component, Default, Debug, PartialEq)]
    #[require(C(7))]
    struct Derived;

    let mut world = World::new();
    world.register_required_components::<Derived, B>();
    world.register_required_components_with::<B, D>(|| D(8));
    let e = world.spawn(Derived).id();
    assert_eq!(world.get::<C>(e), Some(&C(7)));
    assert_eq!(world.get::<B>(e), Some(&B(0)));
    assert_eq!(world.get::<D>(e), Some(&D(8)));
}

#[test]
fn a_panicking_constructor_leaves_the_world_consistent() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    #[derive(Component)]
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    #[derive(Component)]
    struct Needs;

    let mut world = World::new();
    world.register_required_components_with::<Needs, C>(|| panic!("no C today"));
    let message = expect_panic(|| {
        world.spawn((Needs, Counted));
    });
    assert!(message.contains("no C today"), "{message}");
    world.check_integrity().unwrap();
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
    drop(world);
    assert_eq!(DROPS.load(Ordering::SeqCst), 1);
}

mod value_forms {
    use ecs::prelude::*;

    #[derive(Component, Debug, PartialEq)]
    pub enum Mode {
        Slow,
        Fast,
    }

    #[derive(Component, Debug, PartialEq)]
    pub struct Limit(pub u32);

    impl Limit {
        pub const MAX: Limit = Limit(99);
    }

    #[derive(Component, Debug, PartialEq)]
    pub struct Speed(pub f32);

    impl Speed {
        pub fn new(value: f32) -> Speed {
            Speed(value * 2.0)
        }
    }

    pub mod inner {
        #[derive(ecs::prelude::Component, Debug, PartialEq)]
        pub struct Tag(pub u8);
    }

    // bevy_ecs's forms: an enum variant, an associated constant, a
    // constructor call, and a tuple struct behind a module path.
    #[derive(Component)]
    #[require(Mode::Fast, Limit::MAX, Speed::new(1.5), inner::Tag(3))]
    pub struct Racer;

    #[derive(Component, Debug, PartialEq)]
    pub enum Shape {
        Square(f32),
        Circle { r: f32 },
    }

    #[derive(Component, Debug, PartialEq)]
    pub struct Level<T: Send + Sync + 'static>(pub T);

    impl Level<u8> {
        pub const TOP: Level<u8> = Level(9);
    }

    #[derive(Component)]
    #[require(Shape::Circle { r: 1.0 }, Level::<u8>::TOP)]
    pub struct Wheel;

    #[derive(Component)]
    #[require(Shape::Square(2.0))]
    pub struct Crate;

    #[test]
    fn required_values_may_be_tuple_and_struct_variants_and_generic_constants() {
        let mut world = World::new();
        let wheel = world.spawn(Wheel).id();
        assert_eq!(world.get::<Shape>(wheel), Some(&Shape::Circle { r: 1.0 }));
        assert_eq!(world.get::<Level<u8>>(wheel), Some(&Level(9)));
        let boxed = world.spawn(Crate).id();
        assert_eq!(world.get::<Shape>(boxed), Some(&Shape::Square(2.0)));
    }

    #[test]
    fn required_values_may_be_variants_constants_and_constructors() {
        let mut world = World::new();
        let e = world.spawn(Racer).id();
        assert_eq!(world.get::<Mode>(e), Some(&Mode::Fast));
        assert_eq!(world.get::<Limit>(e), Some(&Limit(99)));
        assert_eq!(world.get::<Speed>(e), Some(&Speed(3.0)));
        assert_eq!(world.get::<inner::Tag>(e), Some(&inner::Tag(3)));
        let _ = Mode::Slow;
    }
}
