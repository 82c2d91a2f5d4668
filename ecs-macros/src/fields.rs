//! Reading the struct that a struct-only derive (`Bundle`, `QueryData`,
//! `QueryFilter`, `SystemParam`) is given: how it is written, its fields
//! with the members that name them, and the error for an enum or a union.

use syn::{Data, DataStruct, DeriveInput, Field, Fields, Member};

use crate::errors::Errors;

/// How a struct is written, so that generated code builds and names it the
/// same way.
#[derive(Clone, Copy)]
pub(crate) enum Shape {
    /// `struct S { a: A }`
    Named,
    /// `struct S(A);`
    Tuple,
    /// `struct S;`
    Unit,
}

impl Shape {
    /// The shape of a struct with `fields`.
    pub(crate) fn of(fields: &Fields) -> Self {
        match fields {
            Fields::Named(_) => Self::Named,
            Fields::Unnamed(_) => Self::Tuple,
            Fields::Unit => Self::Unit,
        }
    }
}

/// The struct `input` declares; for an enum or a union, `None`, with an
/// error at its `enum` or `union` token recorded in `errors`.
///
/// `enum_reason` ends the enum's message: why `trait_name` needs a struct.
pub(crate) fn struct_data<'a>(
    input: &'a DeriveInput,
    trait_name: &str,
    enum_reason: &str,
    errors: &mut Errors,
) -> Option<&'a DataStruct> {
    match &input.data {
        Data::Struct(data) => Some(data),
        Data::Enum(data) => {
            errors.push_spanned(
                data.enum_token,
                format!("`{trait_name}` can only be derived for structs: {enum_reason}"),
            );
            None
        }
        Data::Union(data) => {
            errors.push_spanned(
                data.union_token,
                format!(
                    "`{trait_name}` can only be derived for structs: a union holds only one of \
                     its fields at a time"
                ),
            );
            None
        }
    }
}

/// Each field with the member that names it (`a`, or `0` in a tuple
/// struct), in declaration order.
pub(crate) fn with_members(fields: &Fields) -> impl Iterator<Item = (&Field, Member)> {
    fields.iter().zip(fields.members())
}
