//! Where clauses that turn "this field's type does not implement the trait"
//! into one error at the field.
//!
//! A derive names each field's type many times (in trait calls, associated
//! types, generated structs), and a field whose type lacks the trait would
//! be reported once per use, often at the derive attribute. Instead, every
//! generated item carries `FieldType: Trait` in its where clause:
//!
//! - for a correct input nothing changes, since each item needs those
//!   bounds anyway;
//! - for a field whose type lacks the trait, the compiler checks each item
//!   assuming its bounds, and reports the bound that can never hold, which
//!   is the same diagnostic on every item, once, at the field's type.

use proc_macro2::{Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{Generics, Type};

/// `where` with the user's predicates, then `ty: bound` for each of
/// `types`; empty when there is nothing to write.
pub(crate) fn where_clause_with_bounds<'t>(
    generics: &Generics,
    types: impl IntoIterator<Item = &'t Type>,
    bound: &TokenStream,
) -> TokenStream {
    where_clause_with_type_bounds(generics, types.into_iter().map(|ty| (ty, bound.clone())))
}

/// [`where_clause_with_bounds`], with a bound of its own for each type (as
/// when the bound names the type's associated types).
pub(crate) fn where_clause_with_type_bounds<'t>(
    generics: &Generics,
    bounds: impl IntoIterator<Item = (&'t Type, TokenStream)>,
) -> TokenStream {
    let user = generics
        .where_clause
        .iter()
        .flat_map(|where_clause| &where_clause.predicates)
        .map(|predicate| quote!(#predicate));
    let fields = bounds.into_iter().map(|(ty, bound)| {
        // The compiler spans a predicate from its first token to its last:
        // the type's own tokens, then the bound respanned at the type's last
        // token, so that the whole type is underlined.
        let bound = respan(bound, last_token_span(ty));
        quote!(#ty: #bound)
    });
    let predicates: Vec<TokenStream> = user.chain(fields).collect();
    if predicates.is_empty() {
        TokenStream::new()
    } else {
        quote!(where #(#predicates),*)
    }
}

/// Whether `ty` names one of `generics`' type parameters, at any depth.
///
/// A bound on such a type is left off an item that user derives go on: a
/// where clause `&'static T: Trait` hides the trait's impl from the
/// compiler inside the item, so `<&'static T as Trait>::Assoc` no longer
/// resolves to what the impl says (and a derived `Debug` cannot see that
/// it is `&T`).
pub(crate) fn mentions_type_param(ty: &Type, generics: &Generics) -> bool {
    fn walk(tokens: TokenStream, names: &[&syn::Ident]) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => names.contains(&&ident),
            TokenTree::Group(group) => walk(group.stream(), names),
            _ => false,
        })
    }
    let names: Vec<&syn::Ident> = generics.type_params().map(|param| &param.ident).collect();
    !names.is_empty() && walk(ty.to_token_stream(), &names)
}

/// The span of the last token of `ty`: with the span of its first token
/// (`ty.span()` on stable), what makes the compiler underline all of it.
pub(crate) fn last_token_span(ty: &Type) -> Span {
    ty.to_token_stream()
        .into_iter()
        .last()
        .map_or_else(|| ty.span(), |token| token.span())
}

/// `tokens` with every token, at any depth, spanned at `span`.
pub(crate) fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(group) => {
                let mut respanned = Group::new(group.delimiter(), respan(group.stream(), span));
                respanned.set_span(span);
                TokenTree::Group(respanned)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// The user's where clause plus `Self: Send + Sync + 'static`, the
/// trait's supertraits: a generic type needs no bounds of its own, and the
/// impl applies where its parameters meet them (a concrete type that is not
/// `Send` is still an error at the derive).
pub(crate) fn where_self_is_send_sync_static(generics: &Generics) -> TokenStream {
    let user = generics
        .where_clause
        .iter()
        .flat_map(|where_clause| &where_clause.predicates);
    quote! {
        where #(#user,)* Self: ::core::marker::Send + ::core::marker::Sync + 'static
    }
}

#[cfg(test)]
mod tests {
    use syn::parse_quote;

    use super::*;

    #[test]
    fn user_predicates_come_first() {
        let mut generics: Generics = parse_quote!(<T>);
        generics.where_clause = Some(parse_quote!(where T: Send));
        let types: Vec<Type> = vec![parse_quote!(&'static T), parse_quote!(u8)];
        let out = where_clause_with_bounds(&generics, &types, &quote!(::ecs::Trait));
        assert_eq!(
            out.to_string(),
            "where T : Send , & 'static T : :: ecs :: Trait , u8 : :: ecs :: Trait"
        );
    }

    #[test]
    fn each_type_may_have_its_own_bound() {
        let generics: Generics = parse_quote!(<T>);
        let a: Type = parse_quote!(A<T>);
        let b: Type = parse_quote!(B);
        let out = where_clause_with_type_bounds(
            &generics,
            [
                (&a, quote!(Trait<Item = A<T>>)),
                (&b, quote!(Trait<Item = B>)),
            ],
        );
        assert_eq!(
            out.to_string(),
            "where A < T > : Trait < Item = A < T >> , B : Trait < Item = B >"
        );
    }

    #[test]
    fn nothing_to_bound_is_no_where_clause() {
        let generics: Generics = parse_quote!(<T>);
        let out = where_clause_with_bounds(&generics, &[], &quote!(::ecs::Trait));
        assert!(out.is_empty());
    }
}
