"""The set lists a server keeps (`/421 set add`): stored, found, and imported from Scryfall with
their progress shown; 421 leagues and set drafts (`/draft start set:`) use them."""
