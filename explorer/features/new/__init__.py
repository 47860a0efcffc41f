"""What is new: the papers each build added (stage), since a build and near a collection or a
question (query), `explorer new` (cli) and the What's new page (ui, page)."""
