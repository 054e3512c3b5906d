"""SQL of conversations: a collection's conversations and their turns.

* ``hke_conversations``: one row per (collection, conversation id), tied to the collection (``ON DELETE CASCADE``:
  dropping a collection drops its conversations). A turn takes its number by an upsert of this row
  (:data:`APPEND_TURN`), which locks it until the turn commits, so that two processes appending to one conversation
  keep order and lose nothing.
* ``hke_conversation_turns``: one row per turn: the question as typed, the standalone question used, the slots
  (entity, attribute) and what was carried over, the answer and its facts (cited element ids and values), and the
  episode the turn belongs to. ``facts`` of turns older than the memory's bound are cleared (the memory is bounded;
  the turn's text stays), once summarised:
* ``hke_conversation_summary``: the summary of the episodes past the bound, one row per fact: the entity and
  attribute of the turn it was cited for, its value, the episode and the element it came from. A newer turn about the
  same entity and attribute replaces the older's rows, and rows of turns more than ``summary_turns`` past the bound
  are dropped: the summary stays bounded however long the conversation.

All statements take parameters; none is built from user text.
"""

# Serialises the DDL below across processes (CREATE … IF NOT EXISTS still races on the catalog).
SCHEMA_LOCK_KEY = 4_851_220_032

CREATE_SCHEMA = [
    """
    CREATE TABLE IF NOT EXISTS hke_conversations (
        collection_id   uuid NOT NULL REFERENCES hke_collections (id) ON DELETE CASCADE,
        conversation_id text NOT NULL,
        created_at      timestamptz NOT NULL DEFAULT now(),
        updated_at      timestamptz NOT NULL DEFAULT now(),
        turns           integer NOT NULL DEFAULT 0,
        PRIMARY KEY (collection_id, conversation_id)
    )
    """,
    """
    CREATE TABLE IF NOT EXISTS hke_conversation_turns (
        collection_id   uuid NOT NULL,
        conversation_id text NOT NULL,
        turn            integer NOT NULL,
        episode         integer NOT NULL,
        question        text NOT NULL,
        understood_as   text NOT NULL,
        entity          text,
        attribute       text,
        attribute_terms text[] NOT NULL DEFAULT '{}',
        carried         jsonb NOT NULL DEFAULT '{}',
        answer          text NOT NULL DEFAULT '',
        facts           jsonb,
        created_at      timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (collection_id, conversation_id, turn),
        FOREIGN KEY (collection_id, conversation_id)
            REFERENCES hke_conversations (collection_id, conversation_id) ON DELETE CASCADE
    )
    """,
    # A conversation may be as of a date: every turn reads the version in force then (NULL: the current one).
    "ALTER TABLE hke_conversations ADD COLUMN IF NOT EXISTS as_of timestamptz",
    # The standalone question's embedding: the next turn's episode is cut where it lies far from this one.
    "ALTER TABLE hke_conversation_turns ADD COLUMN IF NOT EXISTS query_vector vector",
    """
    CREATE TABLE IF NOT EXISTS hke_conversation_summary (
        collection_id   uuid NOT NULL,
        conversation_id text NOT NULL,
        turn            integer NOT NULL,
        episode         integer NOT NULL,
        entity          text,
        attribute       text,
        element_id      text,
        value           text NOT NULL,
        FOREIGN KEY (collection_id, conversation_id)
            REFERENCES hke_conversations (collection_id, conversation_id) ON DELETE CASCADE
    )
    """,
    """
    CREATE INDEX IF NOT EXISTS hke_conversation_summary_turn
        ON hke_conversation_summary (collection_id, conversation_id, turn)
    """,
]

# One turn appended in one statement (one round trip in autocommit): the conversation made or its turn count taken
# (the upsert locks its row until the statement commits, so concurrent appends get consecutive numbers in commit
# order), the turn inserted under that number (``episode`` NULL: the turn starts an episode numbered after itself),
# and the facts of turns older than the last ``keep`` moved into the summary (the memory is bounded; the turns' text
# stays): a summarised turn's rows replace the summary's rows of the same entity and attribute, and summary rows of
# turns more than ``summary_turns`` past the bound go. A turn committed by another process while this one waited is
# newer than any turn summarised here, so the statement's snapshot missing it summarises nothing it should keep. The
# commit waits for the WAL flush like every other write: a turn the page has shown survives a server crash.
APPEND_TURN = """
WITH next AS (
    INSERT INTO hke_conversations (collection_id, conversation_id, turns, as_of)
    SELECT id, %(conversation)s, 1, %(as_of)s FROM hke_collections WHERE name = %(collection)s
    ON CONFLICT (collection_id, conversation_id)
    DO UPDATE SET turns = hke_conversations.turns + 1, updated_at = now()
    RETURNING collection_id, turns
), added AS (
    INSERT INTO hke_conversation_turns (collection_id, conversation_id, turn, episode, question, understood_as,
                                        entity, attribute, attribute_terms, carried, answer, facts, query_vector)
    SELECT collection_id, %(conversation)s, turns, COALESCE(%(episode)s, turns), %(question)s, %(understood_as)s,
           %(entity)s, %(attribute)s, %(attribute_terms)s, %(carried)s, %(answer)s, %(facts)s, %(query_vector)s
    FROM next
    RETURNING turn, episode
), old AS (
    SELECT t.turn, t.episode, t.entity, t.attribute, t.facts
    FROM hke_conversation_turns t, next
    WHERE t.collection_id = next.collection_id AND t.conversation_id = %(conversation)s
      AND t.turn <= next.turns - %(keep)s AND t.facts IS NOT NULL
), forgotten AS (
    UPDATE hke_conversation_turns t SET facts = NULL
    FROM old, next
    WHERE t.collection_id = next.collection_id AND t.conversation_id = %(conversation)s AND t.turn = old.turn
), replaced AS (
    DELETE FROM hke_conversation_summary s
    USING next
    WHERE s.collection_id = next.collection_id AND s.conversation_id = %(conversation)s
      AND (s.turn <= next.turns - %(keep)s - %(summary_turns)s
           OR EXISTS (SELECT 1 FROM old WHERE old.entity IS NOT DISTINCT FROM s.entity
                                          AND old.attribute IS NOT DISTINCT FROM s.attribute))
), summarised AS (
    INSERT INTO hke_conversation_summary (collection_id, conversation_id, turn, episode, entity, attribute,
                                          element_id, value)
    SELECT next.collection_id, %(conversation)s, old.turn, old.episode, old.entity, old.attribute,
           f.fact ->> 'element_id', f.fact ->> 'value'
    FROM next, old, jsonb_array_elements(old.facts) AS f(fact)
    WHERE old.turn > next.turns - %(keep)s - %(summary_turns)s AND f.fact ->> 'value' IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM old newer WHERE newer.turn > old.turn
                      AND newer.entity IS NOT DISTINCT FROM old.entity
                      AND newer.attribute IS NOT DISTINCT FROM old.attribute)
)
SELECT turn, episode FROM added
"""

# The summary of the episodes past the memory's bound, oldest first.
SUMMARY = """
SELECT turn, episode, entity, attribute, element_id, value FROM hke_conversation_summary
WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s
ORDER BY turn, element_id
"""

# One conversation's row: its turn count and the date it is as of.
CONVERSATION = """
SELECT turns, as_of, created_at, updated_at FROM hke_conversations
WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s
"""

# The last ``limit`` turns, oldest first.
RECENT_TURNS = """
SELECT * FROM (
    SELECT turn, episode, question, understood_as, entity, attribute, attribute_terms, carried, answer, facts,
           created_at
    FROM hke_conversation_turns
    WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s
    ORDER BY turn DESC LIMIT %(limit)s
) recent ORDER BY turn
"""

# The conversation's row and its last ``limit`` turns (oldest first) in one statement: what a turn reads before it is
# answered, with the last turn's question embedding (the others' are not needed: an episode is cut against the
# turn before). No row: the conversation is new; a row whose turn columns are NULL: a conversation with no turn yet.
MEMORY = """
SELECT c.turns, c.as_of, c.created_at, c.updated_at,
       t.turn, t.episode, t.question, t.understood_as, t.entity, t.attribute, t.attribute_terms, t.carried, t.answer,
       t.facts, t.created_at, CASE WHEN t.turn = c.turns THEN t.query_vector END
FROM hke_conversations c
LEFT JOIN LATERAL (
    SELECT * FROM hke_conversation_turns x
    WHERE x.collection_id = c.collection_id AND x.conversation_id = c.conversation_id
    ORDER BY x.turn DESC LIMIT %(limit)s
) t ON true
WHERE c.collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND c.conversation_id = %(conversation)s
ORDER BY t.turn
"""

ALL_TURNS = """
SELECT turn, episode, question, understood_as, entity, attribute, attribute_terms, carried, answer, facts, created_at
    FROM hke_conversation_turns
WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s
ORDER BY turn
"""

LIST_CONVERSATIONS = """
SELECT conversation_id, turns, created_at, updated_at, as_of FROM hke_conversations
WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
ORDER BY updated_at DESC
"""

DELETE_CONVERSATION = """
DELETE FROM hke_conversations WHERE collection_id = (SELECT id FROM hke_collections WHERE name = %(collection)s)
  AND conversation_id = %(conversation)s
"""
