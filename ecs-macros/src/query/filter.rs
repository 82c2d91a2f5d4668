//! `#[derive(QueryFilter)]`: the struct's `WorldQuery` and `QueryFilter`
//! impls; a row passes when every field's filter passes.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::DeriveInput;

use super::world_query::{state_struct, TermType, WorldQueryImpl};
use super::{all, QueryStruct};
use crate::errors::Errors;

/// Expands `#[derive(QueryFilter)]` on `input`.
pub(crate) fn derive(input: &DeriveInput) -> syn::Result<TokenStream> {
    Ok(QueryFilterInput::parse(input)?.generate())
}

/// Everything the generated code depends on.
struct QueryFilterInput<'a> {
    query: QueryStruct<'a>,
}

impl<'a> QueryFilterInput<'a> {
    /// Reads and validates `input`, reporting every problem at once.
    fn parse(input: &'a DeriveInput) -> syn::Result<Self> {
        let mut errors = Errors::default();
        let query = QueryStruct::parse(
            input,
            "QueryFilter",
            "use `'static` in the field types: a filter borrows nothing from the world",
            &mut errors,
        );
        errors.check()?;
        Ok(Self { query })
    }

    fn generate(&self) -> TokenStream {
        let query = &self.query;
        let ident = query.ident;
        let krate = &query.krate;
        let query_filter = quote!(#krate::query::QueryFilter);
        let state = format_ident!("{}State", ident);
        let fetch = format_ident!("{}Fetch", ident);

        let types = TermType::fields(query);
        let state_struct = state_struct(query, &state);
        let world_query = WorldQueryImpl {
            query,
            self_ident: ident,
            types: &types,
            fetch: &fetch,
            state: &state,
        }
        .generate();

        let (impl_generics, ty_generics, _) = query.generics.split_for_impl();
        let where_clause = &query.where_clause;
        let is_archetypal = all(TermType::items(
            &types,
            &query_filter,
            quote!(IS_ARCHETYPAL),
        ));
        // `&&` stops at the first field that rejects the row, as a tuple
        // filter does.
        let filter_fetch = all(types.iter().zip(&query.fields).map(|(ty, field)| {
            let filter_fetch = ty.item(&query_filter, quote!(filter_fetch));
            let name = &field.name;
            quote!(#filter_fetch(&mut fetch.#name, entity, table_row))
        }));
        let allow_unused = query
            .fields
            .is_empty()
            .then(|| quote!(#[allow(unused_variables)]));

        let read_fields = query.read_fields();
        quote! {
            const _: () = {
                #read_fields
                #state_struct
                #world_query

                // SAFETY: `IS_ARCHETYPAL` holds only if it holds for every
                // field, and then every field passes every row of a matched
                // archetype, so their conjunction does too.
                #[automatically_derived]
                unsafe impl #impl_generics #query_filter for #ident #ty_generics #where_clause {
                    const IS_ARCHETYPAL: ::core::primitive::bool = #is_archetypal;

                    #[inline(always)]
                    #allow_unused
                    unsafe fn filter_fetch(
                        fetch: &mut Self::Fetch<'_>,
                        entity: #krate::entity::Entity,
                        table_row: #krate::storage::TableRow,
                    ) -> ::core::primitive::bool {
                        // SAFETY: forwarded; the caller's guarantee for the
                        // struct's row covers each field.
                        unsafe { #filter_fetch }
                    }
                }
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;
    use crate::test_support::{expand, messages};

    #[test]
    fn every_field_must_pass() {
        let out = expand(
            derive,
            parse_quote!(
                struct F {
                    a: With<A>,
                    b: Changed<B>,
                }
            ),
        )
        .unwrap();
        assert!(
            out.contains("const IS_ARCHETYPAL : :: core :: primitive :: bool = < With < A > as :: ecs :: query :: QueryFilter > :: IS_ARCHETYPAL && < Changed < B > as :: ecs :: query :: QueryFilter > :: IS_ARCHETYPAL ;"),
            "{out}"
        );
        assert!(
            out.contains("unsafe { < With < A > as :: ecs :: query :: QueryFilter > :: filter_fetch (& mut fetch . a , entity , table_row) && < Changed < B > as"),
            "{out}"
        );
        assert!(!out.contains("QueryData"), "{out}");
        assert!(
            !out.contains("unused_variables)] unsafe fn filter_fetch"),
            "{out}"
        );
    }

    #[test]
    fn unit_struct_keeps_every_row() {
        let out = expand(
            derive,
            parse_quote!(
                struct Everything;
            ),
        )
        .unwrap();
        assert!(
            out.contains("const IS_ARCHETYPAL : :: core :: primitive :: bool = true"),
            "{out}"
        );
        assert!(
            out.contains("const IS_DENSE : :: core :: primitive :: bool = true"),
            "{out}"
        );
        assert!(out.contains("unsafe { true }"), "{out}");
    }

    #[test]
    fn enums_and_lifetimes_are_rejected() {
        assert_eq!(
            messages(derive, parse_quote!(
                enum F<'a> {
                    A(With<&'a A>),
                }
            )),
            [
                "`QueryFilter` types must be 'static: remove the lifetime parameter `'a` and use `'static` in the field types: a filter borrows nothing from the world",
                "`QueryFilter` can only be derived for structs: the variants of an enum have different fields, and a query needs one fixed set of terms",
            ]
        );
    }
}
