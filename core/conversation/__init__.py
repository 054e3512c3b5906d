"""Conversations: a follow-up question resolved offline into the standalone question it means, and a bounded
episodic memory of slots and facts carried from turn to turn instead of the history's text.

Each question is read for its two slots with the analysis retrieval already makes: the **entity** it names
(:func:`core.retrieval.shape.name_runs` after the preamble) and the **attribute** it asks
(:func:`core.statements.question_terms`, the entity's own terms and follow-up words taken out). Then:

* entity and attribute both named: a new subject and a new question, asked as typed; a new **episode** starts and
  nothing is carried over;
* an entity but no attribute ("And the 27QX?", "그럼 27QX는?"): the previous turn's attribute is carried;
* an attribute but no entity ("What about its warranty?", "그것의 보증기간은?"): the previous turn's entity is carried,
  "its"/"그것" replaced by it;
* neither ("And?"): both are carried.

The memory of a turn is its slots and its **facts**: the element ids and texts the answer cited. A later turn reads
the slots and facts of its episode (at most :attr:`MemoryConfig.keep_turns` turns back), never the history's text;
turns older than that keep their text and their facts move into a bounded summary (:mod:`core.conversation.summary`:
entity, attribute, value, episode and element; a follow-up about an entity in it carries its summarised facts).
Of several names, the entity is one outside the question's scope ("Kiwi 품사 태그에서") and one the collection
knows (:data:`KnownNames`); a Korean particle written onto a name ("27QX는", "getUser를") is cut by kiwipiepy.
An episode is also cut where a follow-up's standalone question lies far from the turn before's (embedding distance,
:func:`cut_episode`), and once the kept facts are many a follow-up carries its nearest community's facts
(:mod:`core.conversation.communities`) instead of its episode's.

A conversation may be as of a date (its first turn's): every turn reads that date. With a chat model, a rewrite is
asked and checked against the slots (:mod:`core.conversation.rewrite`); when they disagree, the slots win.
"""

from core.conversation.memory import (
    ConversationDateError,
    MemoryConfig,
    PendingTurn,
    Turn,
    answer_text,
    ask_in_conversation,
    cosine_distance,
    cut_episode,
    facts_of,
    history_tokens,
    memory_tokens,
    start_turn,
    with_community_facts,
    with_summary_facts,
)
from core.conversation.resolution import KnownNames, Resolution, Slots, analyse, as_typed, describe, resolve
from core.conversation.summary import Summary, summarise

__all__ = ["ConversationDateError", "KnownNames", "MemoryConfig", "PendingTurn", "Resolution", "Slots", "Summary",
           "Turn", "analyse", "answer_text", "as_typed", "ask_in_conversation", "cosine_distance", "cut_episode",
           "describe", "facts_of", "history_tokens", "memory_tokens", "resolve", "start_turn", "summarise",
           "with_community_facts", "with_summary_facts"]
