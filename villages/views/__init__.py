"""The HTML screens: thin adapters over `villages.services` and `villages.selectors`."""
