"""The chess clock any format's players can run (`/clock`): rules, service, UI and cog."""
