/**
 * Word lists of the offline extractor: capitalised words that are not names, and cues for entity types and
 * relationship types. Small on purpose: they steer a deterministic extractor, they are not a gazetteer.
 */
export const NOT_NAMES = new Set(
  (
    'a an the this that these those he she it they we i you his her its their our my your in on at of by for from to with ' +
    'after before during when while where what which who whom whose why how there here then thus however although though ' +
    'as and but or nor so yet if unless because since until also both each every all some many most few several ' +
    'later early today yesterday monday tuesday wednesday thursday friday saturday sunday ' +
    'january february march april may june july august september october november december ' +
    'mr mrs ms dr sir lady lord professor chapter section figure table one two three first second third ' +
    'english french german italian british american scottish irish swiss european latin greek roman spanish russian dutch'
  ).split(' '),
);

export const TITLES = new Set('mr mrs ms dr sir lady lord king queen prince princess professor captain general saint'.split(' '));

export const CONNECTORS = new Set(['of', 'de', 'da', 'del', 'della', 'von', 'van', 'der', 'du', 'la', 'le', 'bin', 'al']);

export const FIRST_NAMES = new Set(
  (
    'ada charles george mary william john james thomas henry elizabeth jane anne ann augusta annabella richard robert ' +
    'isaac albert marie pierre michael joseph edward francis emily charlotte david samuel benjamin alexander louis ' +
    'nikola thomas alan grace florence jean johann wolfgang ludwig galileo leonardo nicolaus johannes tycho carl ' +
    'friedrich gottfried rene blaise antoine luigi giuseppe hannah sophia sophie caroline margaret catherine victoria ' +
    'arthur alfred frederick walter harriet lucy ellen edith jules andre mark peter paul simon martin'
  ).split(' '),
);

/** Last words that make a span an organization, place, event or product. */
export const TYPE_BY_LAST_WORD: Record<string, string> = Object.fromEntries([
  ...'company society university college institute institution academy corporation inc ltd bank museum library association council parliament navy army party observatory railway school church office board agency foundation'
    .split(' ')
    .map((w) => [w, 'organization']),
  ...'river mountain mount lake island islands street city sea ocean county valley bay hall house park square bridge castle palace kingdom empire'
    .split(' ')
    .map((w) => [w, 'place']),
  ...'war battle revolution exhibition expedition treaty conference congress olympics festival crisis'.split(' ').map((w) => [w, 'event']),
  ...'engine machine telescope telegraph loom computer engine steamship locomotive'.split(' ').map((w) => [w, 'product']),
]);

/** Known places (countries and large cities), so "in Paris" is a place, not a concept. */
export const PLACES = new Set(
  (
    'london paris england france italy scotland ireland wales britain germany spain portugal russia austria prussia ' +
    'america europe asia africa india china japan egypt greece rome naples turin florence venice berlin vienna edinburgh ' +
    'dublin oxford cambridge manchester bristol boston york geneva switzerland holland belgium brussels amsterdam'
  ).split(' '),
);

/** Nouns after "is a" / "was a" that name a kind of person, organization, place or product. */
export const TYPE_BY_NOUN: Record<string, string> = Object.fromEntries([
  ...'mathematician writer poet engineer scientist inventor physicist chemist philosopher author painter composer explorer astronomer novelist politician economist daughter son wife husband mother father friend tutor teacher student professor countess baron duke king queen'
    .split(' ')
    .map((w) => [w, 'person']),
  ...'company society university institution organization organisation firm bank'.split(' ').map((w) => [w, 'organization']),
  ...'city town country village capital region river island'.split(' ').map((w) => [w, 'place']),
  ...'machine engine device computer calculator telescope instrument'.split(' ').map((w) => [w, 'product']),
]);

/** Text between two entities of a sentence (lower-cased) -> relationship type. First match wins. */
export const RELATION_PATTERNS: [RegExp, string][] = [
  [/^(worked|collaborated|corresponded) (closely )?(with|alongside)$/, 'worked_with'],
  [/^(married|wed)$/, 'married_to'],
  [/^(was |is )?(the )?(daughter|son|child) of$/, 'child_of'],
  [/^(founded|established|co-founded|created the)$/, 'founded'],
  [/^(invented|designed|built|created|wrote|composed|discovered|proposed|described)( the)?$/, 'created'],
  [/^(taught|tutored|mentored|instructed)$/, 'taught'],
  [/^(met|knew|befriended)$/, 'knows'],
  [/^(was |is )?born in$/, 'born_in'],
  [/^(died|lived|settled|grew up) in$/, 'located_in'],
  [/^(worked|studied|taught|lectured) at$/, 'works_at'],
  [/^(was |is )?(a )?(member|fellow|president|director|head) of( the)?$/, 'member_of'],
  [/^(is|was) (located )?in$/, 'located_in'],
  [/^(is|was) (a |an |the )?(part|section|division) of( the)?$/, 'part_of'],
  [/^of( the)?$/, 'part_of'],
];
