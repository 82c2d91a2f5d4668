//! [`Name`]: a component that names an entity for people (logs, debug
//! output, tools), and [`NameOrEntity`], a query term that prints the name
//! or, without one, the entity.
//!
//! ```
//! use ecs::prelude::*;
//!
//! let mut world = World::new();
//! let hero = world.spawn(Name::new("hero")).id();
//! let other = world.spawn_empty().id();
//!
//! let mut query = world.query::<NameOrEntity>();
//! assert_eq!(query.get(&world, hero).unwrap().to_string(), "hero");
//! assert_eq!(query.get(&world, other).unwrap().to_string(), other.to_string());
//! ```

use std::{
    borrow::Cow,
    cmp::Ordering,
    fmt,
    hash::{Hash, Hasher},
    ops::Deref,
};

use crate::{
    component::{Component, StorageType},
    entity::Entity,
};

/// A string with its hash computed once, so that comparing and hashing
/// names costs one `u64` compare in the common case.
#[derive(Clone)]
pub struct HashedStr {
    hash: u64,
    value: Cow<'static, str>,
}

impl HashedStr {
    /// Hashes `value` once.
    pub fn new(value: impl Into<Cow<'static, str>>) -> Self {
        let value = value.into();
        HashedStr {
            hash: hash_str(&value),
            value,
        }
    }

    /// The string.
    #[inline]
    pub fn as_str(&self) -> &str {
        &self.value
    }

    /// The hash computed when the string was set.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }
}

impl From<&'static str> for HashedStr {
    fn from(value: &'static str) -> Self {
        HashedStr::new(value)
    }
}

impl From<String> for HashedStr {
    fn from(value: String) -> Self {
        HashedStr::new(value)
    }
}

/// An unkeyed hash, so equal names hash equally in every world and run of
/// one build.
fn hash_str(value: &str) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// A name for an entity, for people to read: in logs, panic messages and
/// debug output. Names need not be unique; the entity is the identity.
///
/// Comparisons and hashing use a hash computed when the name is set.
#[derive(Clone)]
pub struct Name(pub HashedStr);

impl Component for Name {
    const STORAGE_TYPE: StorageType = StorageType::Table;
    type Mutability = crate::component::Mutable;
}

impl Default for Name {
    fn default() -> Self {
        Name::new("")
    }
}

impl Name {
    /// A name from a `&'static str` (kept without copying) or a `String`.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        Name(HashedStr::new(name))
    }

    /// Replaces the name.
    #[inline]
    pub fn set(&mut self, name: impl Into<Cow<'static, str>>) {
        *self = Name::new(name);
    }

    /// Changes the name in place through `func`, then hashes it again.
    pub fn mutate(&mut self, func: impl FnOnce(&mut String)) {
        let mut name = std::mem::take(&mut self.0.value).into_owned();
        func(&mut name);
        self.set(name);
    }

    /// The name.
    #[inline]
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// The name's hash, computed when it was set.
    #[inline]
    pub fn pre_hash(&self) -> u64 {
        self.0.hash
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl From<&'static str> for Name {
    fn from(name: &'static str) -> Self {
        Name::new(name)
    }
}

impl From<String> for Name {
    fn from(name: String) -> Self {
        Name::new(name)
    }
}

impl AsRef<str> for Name {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<&Name> for String {
    fn from(name: &Name) -> String {
        name.as_str().to_owned()
    }
}

impl From<Name> for String {
    fn from(name: Name) -> String {
        name.0.value.into_owned()
    }
}

impl Hash for Name {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialEq for Name {
    fn eq(&self, other: &Self) -> bool {
        self.0.hash == other.0.hash && self.as_str() == other.as_str()
    }
}

impl Eq for Name {}

impl PartialOrd for Name {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Name {
    /// Orders by the name's text.
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl Deref for Name {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

/// A query term giving an entity's [`Name`] if it has one, and the entity
/// either way. Its item prints the name, or the entity without one.
///
/// ```
/// use ecs::prelude::*;
///
/// #[derive(Component)]
/// struct Health(u32);
///
/// fn report(query: Query<(NameOrEntity, &Health)>) {
///     for (who, health) in &query {
///         println!("{who} has {} health", health.0);
///     }
/// }
/// # let mut world = World::new();
/// # world.spawn((Name::new("hero"), Health(3)));
/// # world.run_system_once(report).unwrap();
/// ```
#[derive(crate::query::QueryData)]
#[ecs(crate = crate)]
#[query_data(derive(Debug))]
pub struct NameOrEntity {
    /// The name, if the entity has one.
    pub name: Option<&'static Name>,
    /// The entity.
    pub entity: Entity,
}

impl fmt::Display for NameOrEntityItem<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name {
            Some(name) => fmt::Display::fmt(name, f),
            None => fmt::Display::fmt(&self.entity, f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::World;

    #[test]
    fn names_compare_hash_and_print_by_their_text() {
        let a = Name::new("alpha");
        let b = Name::from(String::from("alpha"));
        assert_eq!(a, b);
        assert_eq!(a.pre_hash(), b.pre_hash());
        assert_ne!(a, Name::new("beta"));
        assert!(Name::new("a") < Name::new("b"));
        assert_eq!(format!("{a} {a:?}"), "alpha \"alpha\"");
        assert_eq!(String::from(&a), "alpha");
        assert_eq!(a.len(), 5); // through Deref<Target = str>
        assert_eq!(Name::default().as_str(), "");
    }

    #[test]
    fn set_and_mutate_hash_again() {
        let mut name = Name::new("ab");
        name.mutate(|s| s.push('c'));
        assert_eq!(name, Name::new("abc"));
        assert_eq!(name.pre_hash(), Name::new("abc").pre_hash());
        name.set("x");
        assert_eq!(name, Name::new("x"));
    }

    #[test]
    fn name_or_entity_prints_the_name_or_the_entity() {
        let mut world = World::new();
        let named = world.spawn(Name::new("hero")).id();
        let plain = world.spawn_empty().id();
        let mut query = world.query::<NameOrEntity>();
        let item = query.get(&world, named).unwrap();
        assert_eq!(item.entity, named);
        assert_eq!(item.to_string(), "hero");
        assert_eq!(
            query.get(&world, plain).unwrap().to_string(),
            plain.to_string()
        );
    }
}
