-- +goose Up
-- How kycflow read a list's files (watchlist.Reader): the same files
-- imported by a kycflow that reads them differently — an alias's several
-- spellings apart, say — are a new version of the list, not a no-op.
ALTER TABLE public.watchlist_versions ADD COLUMN reader text NOT NULL DEFAULT '';
ALTER TABLE public.watchlist_versions DROP CONSTRAINT watchlist_versions_list_content_hash_key;
ALTER TABLE public.watchlist_versions ADD CONSTRAINT watchlist_versions_list_content_hash_reader_key UNIQUE (list, content_hash, reader);

-- +goose Down
DELETE FROM public.watchlist_versions a USING public.watchlist_versions b
    WHERE a.list = b.list AND a.content_hash = b.content_hash AND a.id > b.id;
ALTER TABLE public.watchlist_versions DROP CONSTRAINT watchlist_versions_list_content_hash_reader_key;
ALTER TABLE public.watchlist_versions DROP COLUMN reader;
ALTER TABLE public.watchlist_versions ADD CONSTRAINT watchlist_versions_list_content_hash_key UNIQUE (list, content_hash);
