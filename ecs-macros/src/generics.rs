//! Checks on the generic parameters of a derive input.

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
