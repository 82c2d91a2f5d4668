use fixedbitset::FixedBitSet;

use crate::component::ComponentId;

/// Which components something reads and writes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Access {
    /// Components read or written.
    reads_and_writes: FixedBitSet,
    /// Components written.
    writes: FixedBitSet,
    /// Reads every component and resource (`&World`), except those in
    /// `reads_excluded` that `reads_and_writes` does not list.
    reads_all: bool,
    /// Writes every component and resource (`&mut World`), except those
    /// in `writes_excluded` that `writes` does not list.
    writes_all: bool,
    /// With `reads_all`: the components left out of it
    /// ([`EntityRefExcept`](crate::world::EntityRefExcept)).
    reads_excluded: FixedBitSet,
    /// With `writes_all`: the components left out of it.
    writes_excluded: FixedBitSet,
    /// Components whose presence is looked at, not their value (`Has<T>`,
    /// `Allow<T>`): no conflict, but a mention for default query filters.
    archetypal: FixedBitSet,
}

/// What one access touches beyond another ([`Access::excess_over`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AccessExcess {
    ReadAll,
    WriteAll,
    Read(ComponentId),
    Write(ComponentId),
}

/// Clears bit `index` if the set reaches that far.
fn clear_bit(set: &mut FixedBitSet, index: usize) {
    if index < set.len() {
        set.set(index, false);
    }
}

fn grow_insert(set: &mut FixedBitSet, index: usize) {
    set.grow(index + 1);
    set.insert(index);
}

impl Access {
    /// Records a read of `id`.
    pub fn add_read(&mut self, id: ComponentId) {
        grow_insert(&mut self.reads_and_writes, id.index());
        clear_bit(&mut self.reads_excluded, id.index());
    }

    /// Records a write of `id`.
    pub fn add_write(&mut self, id: ComponentId) {
        self.add_read(id);
        grow_insert(&mut self.writes, id.index());
        clear_bit(&mut self.writes_excluded, id.index());
    }

    /// Records that the presence of `id` is looked at (`Has<T>`,
    /// `Allow<T>`), which conflicts with nothing.
    pub fn add_archetypal(&mut self, id: ComponentId) {
        grow_insert(&mut self.archetypal, id.index());
    }

    /// Whether the presence of `id` is looked at ([`Access::add_archetypal`]).
    #[inline]
    pub fn has_archetypal(&self, id: ComponentId) -> bool {
        self.archetypal.contains(id.index())
    }

    /// Records a read of everything.
    pub fn read_all(&mut self) {
        self.reads_all = true;
        self.reads_excluded.clear();
    }

    /// Records a write of everything.
    pub fn write_all(&mut self) {
        self.read_all();
        self.writes_all = true;
        self.writes_excluded.clear();
    }

    /// Removes the read (and the write) of `id`, also out of an access to
    /// everything, which then reads everything else.
    pub fn remove_read(&mut self, id: ComponentId) {
        self.remove_write(id);
        clear_bit(&mut self.reads_and_writes, id.index());
        if self.reads_all {
            grow_insert(&mut self.reads_excluded, id.index());
        }
    }

    /// Removes the write of `id` (the read stays), also out of a write of
    /// everything, which then writes everything else.
    pub fn remove_write(&mut self, id: ComponentId) {
        clear_bit(&mut self.writes, id.index());
        if self.writes_all {
            grow_insert(&mut self.writes_excluded, id.index());
        }
    }

    /// Whether `id` is read (or written).
    #[inline]
    pub fn has_read(&self, id: ComponentId) -> bool {
        self.reads_and_writes.contains(id.index())
            || (self.reads_all && !self.reads_excluded.contains(id.index()))
    }

    /// Whether `id` is written.
    #[inline]
    pub fn has_write(&self, id: ComponentId) -> bool {
        self.writes.contains(id.index())
            || (self.writes_all && !self.writes_excluded.contains(id.index()))
    }

    /// Whether everything is read, with nothing left out.
    pub fn has_read_all(&self) -> bool {
        self.reads_all && self.reads_excluded.is_clear()
    }

    /// Whether everything is written, with nothing left out.
    pub fn has_write_all(&self) -> bool {
        self.writes_all && self.writes_excluded.is_clear()
    }

    /// Whether anything is read (or written).
    pub fn has_any_read(&self) -> bool {
        self.reads_all || !self.reads_and_writes.is_clear()
    }

    /// Whether anything is written.
    pub fn has_any_write(&self) -> bool {
        self.writes_all || !self.writes.is_clear()
    }

    /// Whether nothing is written.
    pub fn is_read_only(&self) -> bool {
        !self.has_any_write()
    }

    /// Adds everything `other` reads and writes.
    pub fn extend(&mut self, other: &Access) {
        // Left out of an access to everything only if both leave it out
        // (a listed id counts whatever the exclusions say).
        fn merge(all: &mut bool, excluded: &mut FixedBitSet, other_all: bool, other: &FixedBitSet) {
            match (*all, other_all) {
                (true, true) => excluded.intersect_with(other),
                (false, true) => excluded.clone_from(other),
                _ => {}
            }
            *all |= other_all;
        }
        merge(
            &mut self.reads_all,
            &mut self.reads_excluded,
            other.reads_all,
            &other.reads_excluded,
        );
        merge(
            &mut self.writes_all,
            &mut self.writes_excluded,
            other.writes_all,
            &other.writes_excluded,
        );
        self.reads_and_writes.union_with(&other.reads_and_writes);
        self.writes.union_with(&other.writes);
        self.archetypal.union_with(&other.archetypal);
        // A listed id is no longer left out.
        self.reads_excluded.difference_with(&self.reads_and_writes);
        self.writes_excluded.difference_with(&self.writes);
    }

    /// Drops from `self` whatever conflicts with `other`: the reads of
    /// what `other` writes and the writes of what it reads. Where `other`
    /// touches everything but a few components, only those few are kept.
    pub fn remove_conflicting_access(&mut self, other: &Access) {
        if other.writes_all {
            let readable: Vec<usize> = other
                .writes_excluded
                .ones()
                .filter(|&i| !other.writes.contains(i) && self.has_read(ComponentId::new(i)))
                .collect();
            let writable: Vec<usize> = readable
                .iter()
                .copied()
                .filter(|&i| self.has_write(ComponentId::new(i)))
                .collect();
            *self = Access {
                archetypal: std::mem::take(&mut self.archetypal),
                ..Access::default()
            };
            for i in readable {
                grow_insert(&mut self.reads_and_writes, i);
            }
            for i in writable {
                grow_insert(&mut self.writes, i);
            }
        } else {
            for i in other.writes.ones() {
                self.remove_read(ComponentId::new(i));
            }
        }
        if other.reads_all {
            let writable: Vec<usize> = other
                .reads_excluded
                .ones()
                .filter(|&i| {
                    !other.reads_and_writes.contains(i) && self.has_write(ComponentId::new(i))
                })
                .collect();
            self.writes.clear();
            self.writes_all = false;
            self.writes_excluded.clear();
            for i in writable {
                grow_insert(&mut self.writes, i);
            }
        } else {
            for i in other.reads_and_writes.ones() {
                self.remove_write(ComponentId::new(i));
            }
        }
    }

    /// The same reads, without any write.
    pub(crate) fn reads_only(&self) -> Access {
        Access {
            reads_and_writes: self.reads_and_writes.clone(),
            reads_all: self.reads_all,
            reads_excluded: self.reads_excluded.clone(),
            archetypal: self.archetypal.clone(),
            ..Access::default()
        }
    }

    /// The ids `writer` writes that `reader` reads (or writes), and
    /// whether both touch everything (all but finitely many, which always
    /// meet).
    fn write_read_overlap(writer: &Access, reader: &Access, found: &mut Vec<Option<ComponentId>>) {
        for i in reader.reads_and_writes.ones() {
            if writer.has_write(ComponentId::new(i)) {
                found.push(Some(ComponentId::new(i)));
            }
        }
        for i in writer.writes.ones() {
            if reader.has_read(ComponentId::new(i)) {
                found.push(Some(ComponentId::new(i)));
            }
        }
        if writer.writes_all && reader.reads_all {
            found.push(None);
        }
    }

    /// Whether the two may be used at the same time: no component is
    /// written by one and read or written by the other.
    pub fn is_compatible(&self, other: &Access) -> bool {
        if !self.writes_all && !other.writes_all && !self.reads_all && !other.reads_all {
            return self.writes.is_disjoint(&other.reads_and_writes)
                && other.writes.is_disjoint(&self.reads_and_writes);
        }
        let mut found = Vec::new();
        Access::write_read_overlap(self, other, &mut found);
        Access::write_read_overlap(other, self, &mut found);
        found.is_empty()
    }

    /// What `self` touches that `allowed` does not: a read or write of
    /// everything (with fewer left out) or of one component.
    pub(crate) fn excess_over(&self, allowed: &Access) -> Option<AccessExcess> {
        if self.writes_all {
            if !allowed.writes_all {
                return Some(AccessExcess::WriteAll);
            }
            if let Some(i) = allowed.writes_excluded.ones().find(|&i| {
                let id = ComponentId::new(i);
                self.has_write(id) && !allowed.has_write(id)
            }) {
                return Some(AccessExcess::Write(ComponentId::new(i)));
            }
        }
        if self.reads_all {
            if !allowed.reads_all {
                return Some(AccessExcess::ReadAll);
            }
            if let Some(i) = allowed.reads_excluded.ones().find(|&i| {
                let id = ComponentId::new(i);
                self.has_read(id) && !allowed.has_read(id)
            }) {
                return Some(AccessExcess::Read(ComponentId::new(i)));
            }
        }
        if let Some(i) = self
            .writes
            .ones()
            .find(|&i| !allowed.has_write(ComponentId::new(i)))
        {
            return Some(AccessExcess::Write(ComponentId::new(i)));
        }
        self.reads_and_writes
            .ones()
            .find(|&i| !allowed.has_read(ComponentId::new(i)))
            .map(|i| AccessExcess::Read(ComponentId::new(i)))
    }

    /// Whether `other` reads and writes at least everything `self` does.
    pub fn is_subset(&self, other: &Access) -> bool {
        self.excess_over(other).is_none()
    }

    /// The components through which the two conflict (empty if compatible;
    /// `None` in the list stands for "everything", from `&World` or
    /// `&mut World`).
    pub fn get_conflicts(&self, other: &Access) -> Vec<Option<ComponentId>> {
        let mut found = Vec::new();
        Access::write_read_overlap(self, other, &mut found);
        Access::write_read_overlap(other, self, &mut found);
        found.sort();
        found.dedup();
        // "Everything" says nothing more when components are named.
        if found.len() > 1 {
            found.retain(Option::is_some);
        }
        found
    }

    /// The components read (or written).
    pub fn reads(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.reads_and_writes.ones().map(ComponentId::new)
    }

    /// The components written.
    pub fn writes(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.writes.ones().map(ComponentId::new)
    }
}

/// One conjunction of a filter in disjunctive normal form: the entity has
/// every component of `with` and none of `without`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AccessFilters {
    with: FixedBitSet,
    without: FixedBitSet,
}

impl AccessFilters {
    /// Whether no entity can match both conjunctions.
    fn is_ruled_out_by(&self, other: &AccessFilters) -> bool {
        !self.with.is_disjoint(&other.without) || !self.without.is_disjoint(&other.with)
    }
}

/// An [`Access`] with the filter under which it happens: which archetypes a
/// query can touch, as a disjunction of with/without conjunctions. Two
/// queries whose accesses conflict may still run together when their
/// filters rule out any shared entity (`With<P>` beside `Without<P>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilteredAccess {
    access: Access,
    /// Components every matched entity has (from data terms and `With`),
    /// used to find candidate archetypes through the component index.
    required: FixedBitSet,
    /// The filter in disjunctive normal form; always at least one clause.
    filter_sets: Vec<AccessFilters>,
    scope: AccessScope,
}

/// Which of the world's data an access reaches through its ids and its
/// "all" flags. An entity query's components and the resources never
/// alias, so accesses of the two never conflict, however broad either is
/// (`Query<EntityMut>` beside `ResMut<R>`), as bevy's queries leave its
/// resource entities out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
enum AccessScope {
    /// Anything: entities' components and resources (`&World`).
    #[default]
    World,
    /// Only entities' components (a query).
    Entities,
    /// Only resources and non-send data.
    Resources,
}

impl AccessScope {
    /// The scope of the union of an access of each.
    fn union(self, other: AccessScope) -> AccessScope {
        if self == other {
            self
        } else {
            AccessScope::World
        }
    }

    /// Whether an access of each can reach the same data.
    fn overlaps(self, other: AccessScope) -> bool {
        !matches!(
            (self, other),
            (AccessScope::Entities, AccessScope::Resources)
                | (AccessScope::Resources, AccessScope::Entities)
        )
    }
}

impl Default for FilteredAccess {
    fn default() -> Self {
        FilteredAccess {
            access: Access::default(),
            required: FixedBitSet::new(),
            filter_sets: vec![AccessFilters::default()],
            scope: AccessScope::World,
        }
    }
}

impl FilteredAccess {
    /// The unfiltered access.
    #[inline]
    pub fn access(&self) -> &Access {
        &self.access
    }

    /// The unfiltered access, mutably.
    #[inline]
    pub fn access_mut(&mut self) -> &mut Access {
        &mut self.access
    }

    /// The access of a parameter that reaches resources (or non-send data)
    /// by these ids only: it never conflicts with an entity query's
    /// access, even one that writes every component.
    pub fn resources(access: Access) -> FilteredAccess {
        FilteredAccess {
            access,
            scope: AccessScope::Resources,
            ..FilteredAccess::default()
        }
    }

    /// Marks the access as an entity query's: it reaches entities'
    /// components only, never a resource.
    pub(crate) fn set_entity_scope(&mut self) {
        self.scope = AccessScope::Entities;
    }

    /// Records a read of `id`, which every matched entity has.
    pub fn add_read(&mut self, id: ComponentId) {
        self.access.add_read(id);
        self.add_required(id);
        self.and_with(id);
    }

    /// Records a write of `id`, which every matched entity has.
    pub fn add_write(&mut self, id: ComponentId) {
        self.access.add_write(id);
        self.add_required(id);
        self.and_with(id);
    }

    /// Forgets what every matched entity has (the first branch of an
    /// `or`, whose requirements are not the other branches').
    pub fn clear_required(&mut self) {
        self.required.clear();
    }

    /// Records that every matched entity has `id`.
    pub fn add_required(&mut self, id: ComponentId) {
        grow_insert(&mut self.required, id.index());
    }

    /// Restricts the filter to entities with `id`.
    pub fn and_with(&mut self, id: ComponentId) {
        for clause in &mut self.filter_sets {
            grow_insert(&mut clause.with, id.index());
        }
    }

    /// Restricts the filter to entities without `id`.
    pub fn and_without(&mut self, id: ComponentId) {
        for clause in &mut self.filter_sets {
            grow_insert(&mut clause.without, id.index());
        }
    }

    /// Combines as "self or other": the filter clauses are joined, the
    /// accesses added, and only what both require stays required.
    pub fn append_or(&mut self, other: &FilteredAccess) {
        self.scope = self.scope.union(other.scope);
        self.filter_sets.extend(other.filter_sets.iter().cloned());
        self.access.extend(&other.access);
        self.required.intersect_with(&other.required);
    }

    /// Combines as "self and other": accesses and requirements added, the
    /// filters multiplied out.
    pub fn extend(&mut self, other: &FilteredAccess) {
        self.scope = self.scope.union(other.scope);
        self.access.extend(&other.access);
        self.required.union_with(&other.required);
        let mut product = Vec::with_capacity(self.filter_sets.len() * other.filter_sets.len());
        for a in &self.filter_sets {
            for b in &other.filter_sets {
                let mut clause = a.clone();
                clause.with.union_with(&b.with);
                clause.without.union_with(&b.without);
                product.push(clause);
            }
        }
        self.filter_sets = product;
    }

    /// Adds `other`'s reads and writes only, not its filter (for
    /// `Option<D>`: it reads what `D` reads without requiring it).
    pub fn extend_access(&mut self, other: &FilteredAccess) {
        self.scope = self.scope.union(other.scope);
        self.access.extend(&other.access);
    }

    /// Whether an archetype with the components for which `contains` is
    /// true passes the filter (one of its clauses).
    pub fn matches_component_set(&self, contains: &impl Fn(ComponentId) -> bool) -> bool {
        self.filter_sets.iter().any(|clause| {
            clause.with.ones().all(|i| contains(ComponentId::new(i)))
                && !clause.without.ones().any(|i| contains(ComponentId::new(i)))
        })
    }

    /// Every component named by a `with` or `without` term of the filter.
    pub fn filter_ids(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.filter_sets
            .iter()
            .flat_map(|c| c.with.ones().chain(c.without.ones()))
            .map(ComponentId::new)
    }

    /// Whether the query mentions `id` by more than a read: its presence is
    /// looked at, or a filter clause requires or excludes it.
    pub fn contains(&self, id: ComponentId) -> bool {
        self.access.has_archetypal(id)
            || self
                .filter_sets
                .iter()
                .any(|f| f.with.contains(id.index()) || f.without.contains(id.index()))
    }

    /// The components every matched entity has.
    pub fn required(&self) -> impl Iterator<Item = ComponentId> + '_ {
        self.required.ones().map(ComponentId::new)
    }

    /// Whether the two may run at once: their accesses are compatible, or
    /// every pair of filter clauses rules out a shared entity.
    pub fn is_compatible(&self, other: &FilteredAccess) -> bool {
        if !self.scope.overlaps(other.scope) || self.access.is_compatible(&other.access) {
            return true;
        }
        self.filters_disjoint(other)
    }

    fn filters_disjoint(&self, other: &FilteredAccess) -> bool {
        self.filter_sets
            .iter()
            .all(|a| other.filter_sets.iter().all(|b| a.is_ruled_out_by(b)))
    }

    /// The components through which the two conflict (empty if
    /// compatible).
    pub fn get_conflicts(&self, other: &FilteredAccess) -> Vec<Option<ComponentId>> {
        if self.is_compatible(other) {
            Vec::new()
        } else {
            self.access.get_conflicts(&other.access)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(i: usize) -> ComponentId {
        ComponentId::new(i)
    }

    #[test]
    fn reads_are_compatible_writes_are_not() {
        let mut a = Access::default();
        a.add_read(id(1));
        let mut b = Access::default();
        b.add_read(id(1));
        assert!(a.is_compatible(&b));
        b.add_write(id(1));
        assert!(!a.is_compatible(&b));
        assert_eq!(a.get_conflicts(&b), vec![Some(id(1))]);
        let mut world_read = Access::default();
        world_read.read_all();
        assert!(world_read.is_compatible(&a));
        assert!(!world_read.is_compatible(&b));
    }

    #[test]
    fn with_and_without_make_writes_disjoint() {
        let mut a = FilteredAccess::default();
        a.add_write(id(0));
        a.and_with(id(5));
        let mut b = FilteredAccess::default();
        b.add_write(id(0));
        b.and_without(id(5));
        assert!(a.is_compatible(&b));
        let mut c = FilteredAccess::default();
        c.add_write(id(0));
        assert!(!a.is_compatible(&c));
        assert_eq!(a.get_conflicts(&c), vec![Some(id(0))]);
    }

    #[test]
    fn or_filters_keep_each_branch() {
        // a: write 0 where (with 1) or (with 2); b: write 0 without 1 and without 2.
        let mut left = FilteredAccess::default();
        left.and_with(id(1));
        let mut right = FilteredAccess::default();
        right.and_with(id(2));
        let mut or = left.clone();
        or.append_or(&right);
        let mut a = FilteredAccess::default();
        a.add_write(id(0));
        a.extend(&or);
        let mut b = FilteredAccess::default();
        b.add_write(id(0));
        b.and_without(id(1));
        b.and_without(id(2));
        assert!(a.is_compatible(&b));
        let mut c = FilteredAccess::default();
        c.add_write(id(0));
        c.and_without(id(1));
        assert!(!a.is_compatible(&c), "the (with 2) branch can meet c");
        assert_eq!(a.required().collect::<Vec<_>>(), vec![id(0)]);
    }
}

/// The accesses of all parameters of one system: each parameter's
/// [`FilteredAccess`] kept apart (so `With`/`Without` can make two of them
/// disjoint), and their combined [`Access`].
#[derive(Debug, Clone, Default)]
pub struct FilteredAccessSet {
    combined: Access,
    filtered: Vec<FilteredAccess>,
}

impl FilteredAccessSet {
    /// Everything read and written, unfiltered.
    #[inline]
    pub fn combined_access(&self) -> &Access {
        &self.combined
    }

    /// Adds one parameter's access.
    pub fn add(&mut self, access: FilteredAccess) {
        self.combined.extend(access.access());
        self.filtered.push(access);
    }

    /// Adds every access of `other` (as when two systems run as one).
    ///
    /// ```
    /// use ecs::prelude::*;
    ///
    /// #[derive(Component)]
    /// struct Health(u32);
    ///
    /// let mut world = World::new();
    /// let mut reader = IntoSystem::into_system(|_: Query<&Health>| {});
    /// let mut writer = IntoSystem::into_system(|_: Query<&mut Health>| {});
    /// reader.initialize(&mut world);
    /// writer.initialize(&mut world);
    /// let mut both = reader.access().clone();
    /// both.extend(writer.access().clone());
    /// let health = world.component_id::<Health>().unwrap();
    /// assert!(both.combined_access().has_write(health));
    /// ```
    pub fn extend(&mut self, other: FilteredAccessSet) {
        self.combined.extend(&other.combined);
        self.filtered.extend(other.filtered);
    }

    /// The components through which `access` conflicts with what this set
    /// holds (empty if it does not).
    pub fn get_conflicts_single(&self, access: &FilteredAccess) -> Vec<Option<ComponentId>> {
        let mut conflicts: Vec<_> = self
            .filtered
            .iter()
            .flat_map(|existing| existing.get_conflicts(access))
            .collect();
        conflicts.sort();
        conflicts.dedup();
        conflicts
    }

    /// Whether two systems with these accesses may run at the same time.
    pub fn is_compatible(&self, other: &FilteredAccessSet) -> bool {
        if self.combined.is_compatible(&other.combined) {
            return true;
        }
        self.filtered
            .iter()
            .all(|a| other.filtered.iter().all(|b| a.is_compatible(b)))
    }

    /// The components through which two systems conflict.
    pub fn get_conflicts(&self, other: &FilteredAccessSet) -> Vec<Option<ComponentId>> {
        let mut conflicts: Vec<_> = self
            .filtered
            .iter()
            .flat_map(|a| other.filtered.iter().flat_map(move |b| a.get_conflicts(b)))
            .collect();
        conflicts.sort();
        conflicts.dedup();
        conflicts
    }
}
