//! Checks on the generic parameters of a derive input, and renaming its
//! lifetimes inside the types that use them.

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use syn::Generics;

use crate::errors::Errors;

/// Records an error at each lifetime parameter of `generics`.
///
/// `Component`, `Bundle` and `Resource` all require `'static`, so a
/// lifetime parameter can never be satisfied; the compiler's own error
/// ("the parameter type may not live long enough" in the generated impl)
/// points away from the cause, this one points at it.
pub(crate) fn reject_lifetimes(generics: &Generics, trait_name: &str, errors: &mut Errors) {
    reject_lifetimes_with_hint(generics, trait_name, None, errors);
}

/// [`reject_lifetimes`], with `hint` (what to write instead) closing each
/// message: "remove the lifetime parameter `'a` and {hint}".
pub(crate) fn reject_lifetimes_with_hint(
    generics: &Generics,
    trait_name: &str,
    hint: Option<&str>,
    errors: &mut Errors,
) {
    let hint = hint.map(|hint| format!(" and {hint}")).unwrap_or_default();
    for param in generics.lifetimes() {
        let lifetime = &param.lifetime;
        errors.push_spanned(
            lifetime,
            format!(
                "`{trait_name}` types must be 'static: remove the lifetime parameter `{lifetime}`{hint}"
            ),
        );
    }
}

/// `tokens` with every lifetime `'from` (at any depth) renamed `'to`, for
/// each `(from, to)` in `renames`; `to` may be `static`.
///
/// A lifetime is the tokens `'` and an identifier, so this sees every use
/// (in references, paths, bounds, even macro arguments) without walking
/// each kind of type. Each renamed lifetime keeps its span, so errors
/// about the new type still point at what the user wrote.
pub(crate) fn rename_lifetimes(tokens: TokenStream, renames: &[(&str, &str)]) -> TokenStream {
    let mut out = Vec::new();
    let mut after_apostrophe = false;
    for token in tokens {
        let token = match token {
            TokenTree::Ident(ident) if after_apostrophe => {
                let name = ident.to_string();
                match renames.iter().find(|(from, _)| *from == name) {
                    Some((_, to)) => TokenTree::Ident(Ident::new(to, ident.span())),
                    None => TokenTree::Ident(ident),
                }
            }
            TokenTree::Group(group) => {
                let mut renamed =
                    Group::new(group.delimiter(), rename_lifetimes(group.stream(), renames));
                renamed.set_span(group.span());
                TokenTree::Group(renamed)
            }
            other => other,
        };
        after_apostrophe = matches!(
            &token,
            TokenTree::Punct(punct)
                if punct.as_char() == '\'' && punct.spacing() == proc_macro2::Spacing::Joint
        );
        out.push(token);
    }
    out.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use quote::{quote, ToTokens};
    use syn::{parse_quote, Type};

    use super::*;

    #[test]
    fn lifetimes_are_renamed_at_any_depth() {
        let ty: Type = parse_quote!(Query<'w, 's, (&'static mut A, Option<Res<'w, R>>), With<W>>);
        let out = rename_lifetimes(ty.to_token_stream(), &[("w", "static"), ("s", "b")]);
        let renamed: Type = syn::parse2(out).unwrap();
        assert_eq!(
            renamed.to_token_stream().to_string(),
            "Query < 'static , 'b , (& 'static mut A , Option < Res < 'static , R > >) , With < W > >"
        );
    }

    #[test]
    fn identifiers_of_the_same_name_are_kept() {
        let out = rename_lifetimes(quote!(w<'w, s>), &[("w", "a"), ("s", "b")]);
        assert_eq!(out.to_string(), quote!(w<'a, s>).to_string());
    }
}
