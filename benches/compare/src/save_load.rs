//! `save_load_column`: a world of `N` entities × 4 small components saved in
//! the column format to a `Vec<u8>` with postcard and loaded back into a
//! new world, on ours (`SaveRegistry::columns` / `load_columns`) and on
//! hecs (`serialize::column`).

use ecs_scenarios::Case;
use serde::{Deserialize, Serialize};

/// Entities in the saved world.
pub const N: usize = 100_000;

macro_rules! components {
    ($($derive:path),*) => {
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize $(, $derive)*)]
        pub struct Position(pub f32, pub f32);
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize $(, $derive)*)]
        pub struct Velocity(pub f32, pub f32);
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize $(, $derive)*)]
        pub struct Rotation(pub f32);
        #[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize $(, $derive)*)]
        pub struct Health(pub u32);

        fn bundle(i: usize) -> (Position, Velocity, Rotation, Health) {
            let f = i as f32;
            (Position(f, -f), Velocity(1.0, f), Rotation(f * 0.5), Health(i as u32))
        }
    };
}

/// Ours.
pub mod ours {
    use super::*;
    use ecs::prelude::*;
    use ecs::world::save::{SaveList, SaveRegistry};

    components!(Component);

    fn registry() -> SaveRegistry<impl SaveList> {
        SaveRegistry::new()
            .component_with_key::<Position>("p")
            .component_with_key::<Velocity>("v")
            .component_with_key::<Rotation>("r")
            .component_with_key::<Health>("h")
    }

    struct State<L> {
        registry: SaveRegistry<L>,
        world: World,
        loaded: World,
    }

    fn round_trip<L: SaveList>(s: &mut State<L>) {
        let bytes = postcard::to_allocvec(&s.registry.columns(&s.world)).expect("saved");
        let mut world = World::new();
        let mut input = postcard::Deserializer::from_bytes(&bytes);
        s.registry
            .load_columns(&mut world, &mut input)
            .expect("loaded");
        s.loaded = world;
    }

    fn verify<L: SaveList>(s: &mut State<L>) {
        round_trip(s);
        let mut count = 0;
        let mut q = s
            .loaded
            .query::<(Entity, &Position, &Velocity, &Rotation, &Health)>();
        for (e, p, v, r, h) in q.iter(&s.loaded) {
            assert_eq!(s.world.get::<Position>(e), Some(p));
            assert_eq!(s.world.get::<Velocity>(e), Some(v));
            assert_eq!(s.world.get::<Rotation>(e), Some(r));
            assert_eq!(s.world.get::<Health>(e), Some(h));
            count += 1;
        }
        assert_eq!(count, N);
    }

    pub fn save_load_column() -> Box<dyn Case> {
        let mut world = World::new();
        world.spawn_batch((0..N).map(bundle)).for_each(drop);
        let state = State {
            registry: registry(),
            world,
            loaded: World::new(),
        };
        ecs_scenarios::case(state, round_trip, verify)
    }
}

/// hecs, with its column serialization.
pub mod hecs_lib {
    use super::*;
    use hecs::serialize::column::{
        deserialize_column, try_serialize, try_serialize_id, DeserializeContext, SerializeContext,
    };
    use hecs::{Archetype, ColumnBatchBuilder, ColumnBatchType, World};
    use serde::de::SeqAccess;
    use std::any::TypeId;

    components!();

    #[derive(Serialize, Deserialize, Clone, Copy)]
    enum Key {
        P,
        V,
        R,
        H,
    }

    #[derive(Default)]
    struct Context {
        keys: Vec<Key>,
    }

    impl SerializeContext for Context {
        fn component_count(&self, archetype: &Archetype) -> usize {
            archetype
                .component_types()
                .filter(|&t| {
                    t == TypeId::of::<Position>()
                        || t == TypeId::of::<Velocity>()
                        || t == TypeId::of::<Rotation>()
                        || t == TypeId::of::<Health>()
                })
                .count()
        }

        fn serialize_component_ids<S: serde::ser::SerializeTuple>(
            &mut self,
            archetype: &Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            try_serialize_id::<Position, _, _>(archetype, &Key::P, &mut out)?;
            try_serialize_id::<Velocity, _, _>(archetype, &Key::V, &mut out)?;
            try_serialize_id::<Rotation, _, _>(archetype, &Key::R, &mut out)?;
            try_serialize_id::<Health, _, _>(archetype, &Key::H, &mut out)?;
            out.end()
        }

        fn serialize_components<S: serde::ser::SerializeTuple>(
            &mut self,
            archetype: &Archetype,
            mut out: S,
        ) -> Result<S::Ok, S::Error> {
            try_serialize::<Position, _>(archetype, &mut out)?;
            try_serialize::<Velocity, _>(archetype, &mut out)?;
            try_serialize::<Rotation, _>(archetype, &mut out)?;
            try_serialize::<Health, _>(archetype, &mut out)?;
            out.end()
        }
    }

    impl DeserializeContext for Context {
        fn deserialize_component_ids<'de, A: SeqAccess<'de>>(
            &mut self,
            mut seq: A,
        ) -> Result<ColumnBatchType, A::Error> {
            self.keys.clear();
            let mut batch = ColumnBatchType::new();
            while let Some(key) = seq.next_element::<Key>()? {
                match key {
                    Key::P => batch.add::<Position>(),
                    Key::V => batch.add::<Velocity>(),
                    Key::R => batch.add::<Rotation>(),
                    Key::H => batch.add::<Health>(),
                };
                self.keys.push(key);
            }
            Ok(batch)
        }

        fn deserialize_components<'de, A: SeqAccess<'de>>(
            &mut self,
            entity_count: u32,
            mut seq: A,
            batch: &mut ColumnBatchBuilder,
        ) -> Result<(), A::Error> {
            for &key in &self.keys {
                match key {
                    Key::P => deserialize_column::<Position, _>(entity_count, &mut seq, batch)?,
                    Key::V => deserialize_column::<Velocity, _>(entity_count, &mut seq, batch)?,
                    Key::R => deserialize_column::<Rotation, _>(entity_count, &mut seq, batch)?,
                    Key::H => deserialize_column::<Health, _>(entity_count, &mut seq, batch)?,
                }
            }
            Ok(())
        }
    }

    struct State {
        world: World,
        loaded: World,
    }

    struct Saved<'a>(&'a World);

    impl Serialize for Saved<'_> {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            hecs::serialize::column::serialize(self.0, &mut Context::default(), s)
        }
    }

    fn round_trip(s: &mut State) {
        let bytes = postcard::to_allocvec(&Saved(&s.world)).expect("saved");
        let mut input = postcard::Deserializer::from_bytes(&bytes);
        s.loaded = hecs::serialize::column::deserialize(&mut Context::default(), &mut input)
            .expect("loaded");
    }

    fn verify(s: &mut State) {
        round_trip(s);
        let mut count = 0;
        for (e, p, v, r, h) in s
            .loaded
            .query_mut::<(hecs::Entity, &Position, &Velocity, &Rotation, &Health)>()
        {
            let original = s.world.entity(e).expect("same ids");
            assert_eq!(*original.get::<&Position>().unwrap(), *p);
            assert_eq!(*original.get::<&Velocity>().unwrap(), *v);
            assert_eq!(*original.get::<&Rotation>().unwrap(), *r);
            assert_eq!(*original.get::<&Health>().unwrap(), *h);
            count += 1;
        }
        assert_eq!(count, N);
    }

    pub fn save_load_column() -> Box<dyn Case> {
        let mut world = World::new();
        world.spawn_batch((0..N).map(bundle));
        ecs_scenarios::case(
            State {
                world,
                loaded: World::new(),
            },
            round_trip,
            verify,
        )
    }
}
