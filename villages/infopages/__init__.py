"""Information pages (情報一覧): the default pages and the Markdown renderer."""
