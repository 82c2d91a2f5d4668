//! Query lenses: a [`QueryState`] seen through other query data and
//! filters (`transmute`), or the intersection of two states (`join`).
//!
//! A lens keeps the matches of the state (or states) it comes from and
//! swaps the terms fetched for each match:
//!
//! ```text
//!  source    Query<(&Position, &Velocity), With<Player>>   matches archetypes 3, 8
//!  lens      transmute::<&Position>()                      same archetypes 3, 8,
//!                                                          fetching only Position
//!  join      (&Position, &Velocity) ⋈ (&Name,)             archetypes matched by both
//! ```
//!
//! A lens may only ask for access its sources have: it reads what they read
//! or write, writes what they write, and only requires components they
//! require (so every term finds its column in every matched archetype).
//! Anything else is refused with a panic naming the component.
//!
//! The terms' states are built with [`WorldQuery::get_state`](super::WorldQuery::get_state), from the
//! components already registered: a lens never registers a component.

use std::any::type_name;

use super::access::AccessExcess;
use super::{FilteredAccess, QueryData, QueryFilter, QueryState};
use crate::{
    component::{ComponentId, Components},
    world::{UnsafeWorldCell, World},
};

impl<'w> From<&'w World> for UnsafeWorldCell<'w> {
    fn from(world: &'w World) -> Self {
        UnsafeWorldCell::new_readonly(world)
    }
}

impl<'w> From<&'w mut World> for UnsafeWorldCell<'w> {
    fn from(world: &'w mut World) -> Self {
        UnsafeWorldCell::new_mutable(world)
    }
}

impl<D: QueryData, F: QueryFilter> QueryState<D, F> {
    /// This state's matches, fetching `NewD` instead of `D` (no filter).
    ///
    /// The new state keeps this state's matched archetypes; calling
    /// [`QueryState::update_archetypes`] on it (which most of its safe
    /// methods do) adds the archetypes `NewD` matches on its own, so it is
    /// best used once, or through [`Query::transmute_lens`](crate::system::Query::transmute_lens).
    ///
    /// # Panics
    /// If `NewD` accesses a component this state does not, writes one it
    /// only reads, or requires one it does not require (naming the
    /// component), or if a component of `NewD` is not registered.
    #[track_caller]
    pub fn transmute<'a, NewD: QueryData>(
        &self,
        world: impl Into<UnsafeWorldCell<'a>>,
    ) -> QueryState<NewD> {
        self.transmute_filtered::<NewD, ()>(world.into())
    }

    /// This state's matches, fetching `NewD` and filtering with `NewF`.
    ///
    /// `NewF`'s archetypal terms (`With`, `Without`) only narrow the
    /// matches: every term must require only what this state requires.
    /// Bevy instead ignores a `With` the source does not require; here
    /// `With<T>` counts as requiring `T`, which keeps the refusal rule one
    /// rule.
    ///
    /// # Panics
    /// As for [`QueryState::transmute`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn transmute_filtered<'a, NewD: QueryData, NewF: QueryFilter>(
        &self,
        world: impl Into<UnsafeWorldCell<'a>>,
    ) -> QueryState<NewD, NewF> {
        let world = world.into();
        self.validate_world(world.id());
        let (mut access, mut fetch_state, filter_state) =
            lens_terms::<NewD, NewF>(world.components());
        let allowed = Allowed::of(self);
        allowed.lend_rest::<NewD>(&mut fetch_state, &mut access);
        if let Some(refusal) = allowed.refusal(&access) {
            refuse(
                "transmute",
                type_name::<(NewD, NewF)>(),
                type_name::<(D, F)>(),
                refusal,
                world.components(),
            );
        }
        QueryState::from_matches(
            world,
            self.archetype_generation(),
            access,
            fetch_state,
            filter_state,
            self.matched_archetypes().iter().copied(),
            self.walks_tables(),
        )
    }

    /// The entities matched by both this state and `other`, fetching
    /// `NewD` (no filter).
    ///
    /// # Panics
    /// If the states belong to different worlds, or `NewD` asks for access
    /// neither state has (see [`QueryState::transmute`]).
    #[track_caller]
    pub fn join<'a, OtherD: QueryData, NewD: QueryData>(
        &self,
        world: impl Into<UnsafeWorldCell<'a>>,
        other: &QueryState<OtherD>,
    ) -> QueryState<NewD, ()> {
        self.join_filtered::<OtherD, (), NewD, ()>(world, other)
    }

    /// The entities matched by both this state and `other`, fetching
    /// `NewD` and filtering with `NewF`.
    ///
    /// # Panics
    /// As for [`QueryState::join`], for `NewD` and `NewF`.
    #[track_caller]
    pub fn join_filtered<
        'a,
        OtherD: QueryData,
        OtherF: QueryFilter,
        NewD: QueryData,
        NewF: QueryFilter,
    >(
        &self,
        world: impl Into<UnsafeWorldCell<'a>>,
        other: &QueryState<OtherD, OtherF>,
    ) -> QueryState<NewD, NewF> {
        assert!(
            self.world_id() == other.world_id(),
            "cannot join `{}` with `{}`: they belong to different worlds",
            type_name::<(D, F)>(),
            type_name::<(OtherD, OtherF)>(),
        );
        let world = world.into();
        self.validate_world(world.id());
        let (mut access, mut fetch_state, filter_state) =
            lens_terms::<NewD, NewF>(world.components());
        let mut allowed = Allowed::of(self);
        allowed.union(Allowed::of(other));
        allowed.lend_rest::<NewD>(&mut fetch_state, &mut access);
        if let Some(refusal) = allowed.refusal(&access) {
            refuse(
                "join",
                type_name::<(NewD, NewF)>(),
                &format!(
                    "{} joined with {}",
                    type_name::<(D, F)>(),
                    type_name::<(OtherD, OtherF)>()
                ),
                refusal,
                world.components(),
            );
        }
        let matched = self
            .matched_archetypes()
            .iter()
            .copied()
            .filter(|&id| other.matches_archetype(id));
        QueryState::from_matches(
            world,
            self.archetype_generation()
                .min(other.archetype_generation()),
            access,
            fetch_state,
            filter_state,
            matched,
            self.walks_tables() && other.walks_tables(),
        )
    }
}

/// The access and term states of a lens's terms.
#[track_caller]
fn lens_terms<NewD: QueryData, NewF: QueryFilter>(
    components: &Components,
) -> (FilteredAccess, NewD::State, NewF::State) {
    let unregistered = |what: &str| -> ! {
        panic!(
            "cannot build a lens with {what} `{}`: one of its components is not registered \
             in the world (register it first, e.g. with `World::register_component`)",
            type_name::<(NewD, NewF)>()
        )
    };
    let fetch_state = NewD::get_state(components).unwrap_or_else(|| unregistered("query data"));
    let filter_state = NewF::get_state(components).unwrap_or_else(|| unregistered("filter"));
    let mut access = FilteredAccess::default();
    NewD::update_component_access(&fetch_state, &mut access);
    // As in `QueryState::new`: a filter reading what the data writes is
    // no conflict.
    let mut filter_access = FilteredAccess::default();
    NewF::update_component_access(&filter_state, &mut filter_access);
    access.extend(&filter_access);
    (access, fetch_state, filter_state)
}

/// What a lens may do: the union of its sources' reads, writes and
/// required components.
struct Allowed {
    access: FilteredAccess,
    required: Vec<ComponentId>,
}

/// Why a lens is refused, naming the component.
enum Refusal {
    Read(ComponentId),
    Write(ComponentId),
    Require(ComponentId),
    ReadAll,
    WriteAll,
}

impl Allowed {
    fn of<D: QueryData, F: QueryFilter>(state: &QueryState<D, F>) -> Self {
        let source = state.component_access().access();
        let mut access = FilteredAccess::default();
        // A read-only view of a mutable state (`as_readonly`) keeps the
        // writes in its recorded access: they are not its to lend.
        if D::IS_READ_ONLY {
            access.access_mut().extend(&source.reads_only());
        } else {
            access.access_mut().extend(source);
        }
        Allowed {
            access,
            required: state.component_access().required().collect(),
        }
    }

    /// Hands the lens's filtered handles (`FilteredEntityRef`,
    /// `FilteredEntityMut`) what the source allows beyond the lens's own
    /// terms, as a builder does with what it names.
    fn lend_rest<NewD: QueryData>(
        &self,
        fetch_state: &mut NewD::State,
        access: &mut FilteredAccess,
    ) {
        let available = super::state::builder_only_access(access.access(), self.access.access());
        NewD::provide_extra_access(fetch_state, access.access_mut(), &available);
    }

    fn union(&mut self, other: Allowed) {
        self.access.extend_access(&other.access);
        self.required.extend(other.required);
    }

    fn refusal(&self, lens: &FilteredAccess) -> Option<Refusal> {
        let allowed = self.access.access();
        let asked = lens.access();
        if let Some(excess) = asked.excess_over(allowed) {
            return Some(match excess {
                AccessExcess::ReadAll => Refusal::ReadAll,
                AccessExcess::WriteAll => Refusal::WriteAll,
                AccessExcess::Read(id) => Refusal::Read(id),
                AccessExcess::Write(id) => Refusal::Write(id),
            });
        }
        lens.required()
            .find(|id| !self.required.contains(id))
            .map(Refusal::Require)
    }
}

#[cold]
#[track_caller]
fn refuse(what: &str, lens: &str, source: &str, refusal: Refusal, components: &Components) -> ! {
    let name = |id: ComponentId| components.get_name(id).unwrap_or("?").to_owned();
    let reason = match refusal {
        Refusal::Read(id) => format!("reads `{}`, which the source does not access", name(id)),
        Refusal::Write(id) => format!("writes `{}`, which the source does not write", name(id)),
        Refusal::Require(id) => format!(
            "requires `{}`, which not every entity the source matches has",
            name(id)
        ),
        Refusal::ReadAll => "reads every component, which the source does not".to_owned(),
        Refusal::WriteAll => "writes every component, which the source does not".to_owned(),
    };
    panic!("cannot {what} `{source}` into `{lens}`: the lens {reason}")
}
