"""Sign-in through OpenID Connect providers from a single-page app (contract 18; docs/api.md)."""
