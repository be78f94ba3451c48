/**
 * A small hand-labelled corpus (paragraphs written for this test from public-domain history) with the named
 * entities each paragraph mentions. Used by the extraction-quality test and benchmark, and by the e2e test.
 */
export interface LabelledParagraph {
  text: string;
  entities: string[];
}

export const CORPUS: LabelledParagraph[] = [
  {
    text: 'Ada Lovelace was an English mathematician. She was the daughter of Lord Byron and Annabella Milbanke.',
    entities: ['Ada Lovelace', 'Byron', 'Annabella Milbanke'],
  },
  {
    text: 'Lovelace worked with Charles Babbage on the Analytical Engine. Babbage designed the Difference Engine in London.',
    entities: ['Ada Lovelace', 'Charles Babbage', 'Analytical Engine', 'Difference Engine', 'London'],
  },
  {
    text: 'In 1843 Ada translated an article by Luigi Menabrea about the Analytical Engine and added her own notes.',
    entities: ['Ada Lovelace', 'Luigi Menabrea', 'Analytical Engine'],
  },
  {
    text: 'Augustus De Morgan tutored Ada Lovelace in mathematics. De Morgan taught at University College London.',
    entities: ['Augustus De Morgan', 'Ada Lovelace', 'University College London'],
  },
  {
    text: 'Mary Somerville introduced Ada to Charles Babbage. Somerville was a Scottish writer on astronomy.',
    entities: ['Mary Somerville', 'Ada Lovelace', 'Charles Babbage'],
  },
  {
    text: 'Charles Babbage was a fellow of the Royal Society. He held the Lucasian chair at Cambridge.',
    entities: ['Charles Babbage', 'Royal Society', 'Cambridge'],
  },
  {
    text: 'Michael Faraday worked at the Royal Institution in London. Faraday discovered electromagnetic induction.',
    entities: ['Michael Faraday', 'Royal Institution', 'London'],
  },
  {
    text: 'Humphry Davy hired Michael Faraday as an assistant. Davy invented the Davy Lamp for miners.',
    entities: ['Humphry Davy', 'Michael Faraday', 'Davy Lamp'],
  },
  {
    text: 'Isambard Kingdom Brunel built the Great Western Railway. Brunel designed the steamship Great Eastern.',
    entities: ['Isambard Kingdom Brunel', 'Great Western Railway', 'Great Eastern'],
  },
  {
    text: 'The Great Exhibition opened in Hyde Park in 1851. Prince Albert championed the Great Exhibition.',
    entities: ['Great Exhibition', 'Hyde Park', 'Prince Albert'],
  },
  {
    text: 'Joseph Paxton designed the Crystal Palace for the Great Exhibition. Paxton was a gardener at Chatsworth House.',
    entities: ['Joseph Paxton', 'Crystal Palace', 'Great Exhibition', 'Chatsworth House'],
  },
  {
    text: 'Charles Darwin sailed on the Beagle with Robert FitzRoy. Darwin later lived at Down House in Kent.',
    entities: ['Charles Darwin', 'Beagle', 'Robert FitzRoy', 'Down House', 'Kent'],
  },
  {
    text: 'Alfred Russel Wallace corresponded with Charles Darwin about natural selection.',
    entities: ['Alfred Russel Wallace', 'Charles Darwin'],
  },
  {
    text: 'Florence Nightingale nursed soldiers during the Crimean War. Nightingale founded a nursing school at St Thomas Hospital.',
    entities: ['Florence Nightingale', 'Crimean War', 'St Thomas Hospital'],
  },
  {
    text: 'George Boole published The Laws of Thought in 1854. Boole taught at Queen’s College Cork in Ireland.',
    entities: ['George Boole', 'Laws of Thought', 'Queen’s College Cork', 'Ireland'],
  },
  {
    text: 'James Clerk Maxwell worked at King’s College London. Maxwell unified electricity and magnetism.',
    entities: ['James Clerk Maxwell', 'King’s College London'],
  },
];

/** Multi-hop questions: the answer's document is reached from an entity the question names, through the graph. */
export const MULTI_HOP = [
  { question: 'What did the daughter of Lord Byron work on?', reaches: 'Analytical Engine' },
  { question: 'Who hired the man who worked at the Royal Institution?', reaches: 'Humphry Davy' },
];
