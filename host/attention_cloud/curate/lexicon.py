"""Word lists the extractive curator reads: stopwords, sentence starters, filler.

Kept apart from the scoring code so that tuning a list never touches an algorithm. All lists
are lowercase frozensets (membership only, so iteration order never matters).
"""
from __future__ import annotations

#: Words too common to say what a text is about (centrality, keywords, n-grams).
STOPWORDS: frozenset[str] = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each few for from further get got had hadn't has hasn't have
    haven't having he he'd he'll he's her here here's hers herself him himself his how how's i
    i'd i'll i'm i've if in into is isn't it it's its itself just let's like me more most much
    mustn't my myself no nor not now of off on once only or other ought our ours ourselves out
    over own really same shan't she she'd she'll she's should shouldn't so some such than that
    that's the their theirs them themselves then there there's these they they'd they'll they're
    they've this those through to too under until up us very was wasn't we we'd we'll we're we've
    were weren't what what's when when's where where's which while who who's whom why why's will
    with won't would wouldn't you you'd you'll you're you've your yours yourself yourselves
    yes yeah ok okay sure well still even ever maybe perhaps quite rather actually basically
    thing things something anything everything way ways lot lots kind sort bit one ones many
    """.split()
)

#: Verbs and adjectives of conversation that say nothing about the topic (keyword tags).
CHATTER: frozenset[str] = frozenset(
    """
    looking look think thinking know knowing want wanted need needed trying tried help helps
    helpful great good nice thanks thank please tell recommend recommendations suggest
    suggestions tips idea ideas sounds sound make making made going goes able sure definitely
    probably especially recently currently already actually certainly absolutely happy glad
    love like liked feel feeling felt said says saying told asked ask question questions answer
    best better first last next new old use used using work working works time times today
    right little different important interesting amazing awesome excited specific options
    option check checking example examples also well however would could should might
    heard hear mentioned mention interested realize realized realise speaking curious learn
    learned learning someone somebody anyone everyone others other another area areas stuff
    planning plan thinking wondering wonder trying considering keep keeping give giving take
    taking come coming getting start started starting find found finding seem seems seemed
    sort kinds lots bunch couple several enough whole part parts point points fact facts case
    cases place places year years month months week weeks days long short high low large small
    big huge tiny real true false pretty super totally fully mostly usually often always never
    sometimes things stuff ones together already anyway though although since during around
    crazy tough hard easy fine okay cool fun lovely wonderful fantastic excellent perfect
    share sharing shared provide provided provides include includes including includes based
    following follows followed below above within without across toward towards further
    ensure make makes allow allows allowed consider note notes noted remember reminds
    experience experiences approach approaches process detail details information info
    resources resource mind minds sense glad sorry hope hoping hoped believe believed
    """.split()
)

#: Capitalised words that open sentences or are pronouns, never names on their own.
NOT_NAMES: frozenset[str] = frozenset(
    """
    i i'm i've i'd i'll the a an this that these those my our your their his her its it we you
    he she they in on at for by if when after before also but and or so then yes no hi hello
    hey thanks thank can could would should will what how why where who which do does did is
    are was were please here there let just as since while with from to of into about
    however although though because once sure okay ok well great perfect certainly absolutely
    note first second third finally next then additionally furthermore overall today
    tomorrow yesterday some any all each every many most other another one two three
    """.split()
)

#: Openers of sentences that carry no content for a summary (assistant pleasantries, sign-offs).
FILLER_OPENERS: tuple[str, ...] = (
    "great question", "good question", "sure", "certainly", "of course", "absolutely",
    "congratulations", "what a ", "i hope this helps", "hope this helps", "let me know",
    "feel free", "happy to help", "i'm happy to help", "i'd be happy to", "i'd love to help",
    "you're welcome", "no problem", "thanks", "thank you", "here are some", "here's a",
    "here are a few", "here is a", "would you like", "do you want", "is there anything",
    "enjoy", "good luck", "have fun", "that's great", "that sounds", "sounds like",
    "i understand", "i see", "got it", "okay", "ok,", "hi", "hello", "hey",
    "i'll definitely", "i'll check", "i'll look into", "i'll give", "i'll keep", "i'll try",
    "that makes sense", "makes sense", "good to know", "that's helpful", "that's really helpful",
    "this is helpful", "that's a great", "you're right", "i appreciate",
)

#: Phrases that introduce new, personal information in conversation ("By the way, I ...").
ASIDE_MARKERS: tuple[str, ...] = (
    "by the way", "btw", "speaking of", "fun fact", "for context", "just so you know",
    "i forgot to mention", "i should mention", "to be clear", "note that", "fyi",
    "oh, and", "oh and", "i just remembered", "incidentally", "on a side note", "as a side note",
    "side note",
)

#: Discourse markers stripped from the front of a sentence chosen for a summary.
SOFT_OPENERS: tuple[str, ...] = (
    "by the way, ", "btw, ", "also, ", "actually, ", "so, ", "well, ", "anyway, ",
    "oh, ", "and ", "but ", "plus, ", "incidentally, ", "speaking of which, ",
)

#: Abbreviations whose trailing period does not end a sentence.
ABBREVIATIONS: frozenset[str] = frozenset(
    """
    mr mrs ms dr prof sr jr st vs etc e.g i.e al fig no inc ltd co corp approx dept est min max
    mt ft jan feb mar apr jun jul aug sep sept oct nov dec u.s u.k
    """.split()
)
