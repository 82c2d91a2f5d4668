//! `#[derive(QueryData)]` and `#[derive(QueryFilter)]`: a struct whose
//! fields are query terms becomes one query term that fetches (or filters
//! by) every field.
//!
//! Both derives read the struct into the same [`QueryStruct`], then
//! generate, field by field, what a tuple of the field types would do:
//!
//! ```text
//! struct Mover { pos: &'static mut Position, vel: &'static Velocity }
//!   ├─ MoverState  { pos: <&mut Position as WorldQuery>::State, vel: .. }    (hidden)
//!   ├─ MoverFetch  { pos: <&mut Position as WorldQuery>::Fetch<'w>, vel: .. } (hidden)
//!   ├─ WorldQuery for Mover: each method delegates to each field in order
//!   └─ QueryData for Mover → MoverItem<'w, 's> { pos: Mut<'w, Position>, vel: &'w Velocity }
//!      (or QueryFilter for the filter derive: every field's filter must pass)
//! ```
//!
//! The hidden types live in a `const _: () = { .. };` block with the impls,
//! so they cannot collide with anything the user names; the item and
//! read-only types are declared beside the struct, because users name them.
//!
//! Every generated item is bounded by `FieldType: QueryData` (or
//! `QueryFilter`) for each field, spanned at the field's type, so a field
//! that is not a query term is one error at that field (see
//! [`crate::bounds`]). Without `#[query_data(mutable)]`, a never-called
//! function also requires each field type to be `ReadOnlyQueryData`, which
//! is what makes the struct's own `ReadOnlyQueryData` impl sound.

mod data;
mod filter;
mod world_query;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::{
    Attribute, DeriveInput, Field, GenericParam, Generics, Lifetime, LifetimeParam, Member, Path,
    Type, Visibility,
};

use crate::attr::EcsAttr;
use crate::bounds::{mentions_type_param, where_clause_with_bounds};
use crate::errors::Errors;
use crate::fields::{self, Shape};
use crate::generics::reject_lifetimes_with_hint;

pub(crate) use data::derive as derive_data;
pub(crate) use filter::derive as derive_filter;

/// The struct a query derive reads: its name, generics and fields.
struct QueryStruct<'a> {
    ident: &'a Ident,
    vis: &'a Visibility,
    generics: &'a Generics,
    krate: Path,
    /// How the struct and the item struct generated from it are written.
    shape: Shape,
    fields: Vec<QueryField<'a>>,
    /// The where clause of every generated item: the user's, and each field
    /// type bounded by the derived trait (see [`crate::bounds`]).
    where_clause: TokenStream,
    /// [`QueryStruct::where_clause`] without the bounds of field types
    /// that name a type parameter (see
    /// [`crate::bounds::mentions_type_param`]): the where clause of item
    /// structs that carry derives of the user's.
    where_clause_for_derives: TokenStream,
}

/// One field: one query term.
struct QueryField<'a> {
    /// How the user's struct and the generated item struct name it.
    member: Member,
    /// How the hidden fetch and state structs name it: the field's own name,
    /// or `field_0`, `field_1`, .. for a tuple struct.
    name: Ident,
    vis: &'a Visibility,
    /// Every attribute on the field.
    attrs: &'a [Attribute],
    /// The field's doc comments, repeated on the item structs' fields.
    docs: Vec<&'a Attribute>,
    ty: &'a Type,
}

impl<'a> QueryStruct<'a> {
    /// Reads `input` for the derive of `trait_name`, recording every problem
    /// in `errors`. An enum or union is recorded as an error and read as a
    /// struct without fields, so that later checks can still run.
    ///
    /// `lifetime_hint` closes the error for a lifetime parameter: what to
    /// write instead.
    fn parse(
        input: &'a DeriveInput,
        trait_name: &str,
        lifetime_hint: &str,
        errors: &mut Errors,
    ) -> Self {
        let EcsAttr { krate } = EcsAttr::parse(&input.attrs, errors);
        reject_lifetimes_with_hint(&input.generics, trait_name, Some(lifetime_hint), errors);
        let data = fields::struct_data(
            input,
            trait_name,
            "the variants of an enum have different fields, and a query needs one fixed set of terms",
            errors,
        );
        let (shape, fields) = match data {
            Some(data) => {
                let fields = fields::with_members(&data.fields)
                    .map(|(field, member)| QueryField::new(field, member))
                    .collect();
                (Shape::of(&data.fields), fields)
            }
            None => (Shape::Unit, Vec::new()),
        };
        // Every generated item carries the user's where clause and
        // `FieldType: {trait_name}` for each field (see `crate::bounds`).
        let trait_ident = Ident::new(trait_name, Span::call_site());
        let where_clause = where_clause_with_bounds(
            &input.generics,
            fields.iter().map(|field: &QueryField| field.ty),
            &quote!(#krate::query::#trait_ident),
        );
        let where_clause_for_derives = where_clause_with_bounds(
            &input.generics,
            fields
                .iter()
                .map(|field: &QueryField| field.ty)
                .filter(|ty| !mentions_type_param(ty, &input.generics)),
            &quote!(#krate::query::#trait_ident),
        );
        Self {
            ident: &input.ident,
            vis: &input.vis,
            generics: &input.generics,
            krate,
            shape,
            fields,
            where_clause,
            where_clause_for_derives,
        }
    }

    /// The attributes of every field, where a container attribute means
    /// nothing.
    fn field_attrs(&self) -> impl Iterator<Item = &'a [Attribute]> + '_ {
        self.fields.iter().map(|field| field.attrs)
    }
}

impl<'a> QueryField<'a> {
    fn new(field: &'a Field, member: Member) -> Self {
        let name = match &member {
            Member::Named(ident) => ident.clone(),
            Member::Unnamed(index) => format_ident!("field_{}", index.index),
        };
        Self {
            member,
            name,
            vis: &field.vis,
            docs: field
                .attrs
                .iter()
                .filter(|attr| attr.path().is_ident("doc"))
                .collect(),
            ty: &field.ty,
            attrs: &field.attrs,
        }
    }
}

impl QueryStruct<'_> {
    /// A function that reads every field of the user's struct.
    ///
    /// The struct is only ever named as a type, never built or read, so
    /// without this each private field would be reported as never read.
    fn read_fields(&self) -> TokenStream {
        let ident = self.ident;
        let (impl_generics, ty_generics, where_clause) = self.generics.split_for_impl();
        let members = self.fields.iter().map(|field| &field.member);
        quote! {
            // Allowed dead code counts as used, and so do its reads.
            #[allow(dead_code, unused_variables)]
            fn __ecs_read_fields #impl_generics (query: &#ident #ty_generics) #where_clause {
                let _ = (#(&query.#members,)*);
            }
        }
    }
}

/// The lifetime of the world an item borrows from, added to the user's
/// generics on the item and fetch types.
fn world_lifetime() -> Lifetime {
    Lifetime::new("'w", Span::call_site())
}

/// `generics` with the world lifetime `'w` in front.
fn with_world_lifetime(generics: &Generics) -> Generics {
    let mut generics = generics.clone();
    generics.params.insert(
        0,
        GenericParam::Lifetime(LifetimeParam::new(world_lifetime())),
    );
    generics
}

/// The state lifetime `'s` of a derived item struct (bevy's second item
/// lifetime; our items borrow nothing from the state).
fn state_lifetime() -> Lifetime {
    Lifetime::new("'s", Span::call_site())
}

/// `generics` with the item lifetimes `'w, 's` in front.
fn with_item_lifetimes(generics: &Generics) -> Generics {
    let mut generics = with_world_lifetime(generics);
    generics.params.insert(
        1,
        GenericParam::Lifetime(LifetimeParam::new(state_lifetime())),
    );
    generics
}

/// `true`, or every term joined with `&&`.
fn all(terms: impl IntoIterator<Item = TokenStream>) -> TokenStream {
    let terms: Vec<TokenStream> = terms.into_iter().collect();
    if terms.is_empty() {
        quote!(true)
    } else {
        quote!(#(#terms)&&*)
    }
}
