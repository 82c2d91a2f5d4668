//! [`Entity`] as serde data: its [`Entity::to_bits`], as bevy writes it.

use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};

use super::Entity;

/// Writes the entity as the `u64` of [`Entity::to_bits`].
///
/// ```
/// use ecs::prelude::*;
/// let e = Entity::from_raw(3);
/// assert_eq!(serde_json::to_string(&e).unwrap(), e.to_bits().to_string());
/// ```
impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.to_bits())
    }
}

/// Reads a `u64` written by [`Entity::to_bits`]; a value that is no
/// entity (a zero generation) is an error.
///
/// ```
/// use ecs::prelude::*;
/// let e: Entity = serde_json::from_str(&Entity::from_raw(3).to_bits().to_string()).unwrap();
/// assert_eq!(e, Entity::from_raw(3));
/// assert!(serde_json::from_str::<Entity>("3").is_err());
/// ```
impl<'de> Deserialize<'de> for Entity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let bits = u64::deserialize(deserializer)?;
        Entity::try_from_bits(bits)
            .ok_or_else(|| D::Error::custom(format_args!("{bits} is not an entity id")))
    }
}
