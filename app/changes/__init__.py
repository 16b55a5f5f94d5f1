"""What a change causes: services record typed domain changes (`events`), and one table (`dispatch`) says
what each one causes (hub event, notifications, webhook, timeline entry, page-cache invalidations)."""
