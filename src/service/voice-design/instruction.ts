import { fliteVoices, type FliteVoice, type VoiceSettings } from '../../engines/index.js';

/** What an instruction says about a voice, read from plain words. */
export interface VoiceTraits {
  gender?: 'female' | 'male';
  age?: 'child' | 'young' | 'middle-aged' | 'elderly';
  /** Pitch change in semitones asked for by words like "deep" or "high". */
  pitchSemitones: number;
  /** Rate multiplier asked for by words like "fast" or "slow". */
  pace: number;
  scottish: boolean;
  /** The words that were understood, for the response's `instruct` echo and for tests. */
  understood: string[];
}

const wordSets = {
  female: ['female', 'woman', 'women', 'girl', 'lady', 'feminine', 'she', 'her', 'mother', 'grandmother', 'actress', 'queen'],
  male: ['male', 'man', 'men', 'boy', 'guy', 'gentleman', 'masculine', 'he', 'his', 'father', 'grandfather', 'actor', 'king'],
  child: ['child', 'kid', 'little', 'toddler'],
  young: ['young', 'youthful', 'teen', 'teenage', 'teenager'],
  middleAged: ['middle-aged', 'mature'],
  elderly: ['old', 'elderly', 'aged', 'senior', 'grandfather', 'grandmother', 'ancient'],
  higher: ['high', 'high-pitched', 'squeaky', 'bright', 'light', 'airy', 'cheerful', 'excited', 'bubbly'],
  lower: ['low', 'deep', 'bass', 'husky', 'gravelly', 'raspy', 'dark', 'booming', 'authoritative', 'serious'],
  faster: ['fast', 'quick', 'quickly', 'rapid', 'hurried', 'energetic', 'excited', 'lively', 'brisk'],
  slower: ['slow', 'slowly', 'leisurely', 'measured', 'relaxed', 'calm', 'soothing', 'gentle', 'soft', 'warm', 'thoughtful'],
  scottish: ['scottish', 'scots', 'scotland'],
};

/** Reads gender, age, pitch, pace and tone words from an instruction. */
export function readInstruction(instruction: string): VoiceTraits {
  const words = instruction.toLowerCase().match(/[a-z]+(?:-[a-z]+)*/g) ?? [];
  const has = (set: readonly string[]) => words.filter((word) => set.includes(word));
  const traits: VoiceTraits = { pitchSemitones: 0, pace: 1, scottish: false, understood: [] };
  const note = (found: string[]) => {
    traits.understood.push(...found);
    return found.length;
  };
  const female = note(has(wordSets.female));
  const male = note(has(wordSets.male));
  if (female > male) traits.gender = 'female';
  else if (male > female) traits.gender = 'male';
  if (note(has(wordSets.child))) traits.age = 'child';
  else if (note(has(wordSets.elderly))) traits.age = 'elderly';
  else if (note(has(wordSets.young))) traits.age = 'young';
  else if (note(has(wordSets.middleAged))) traits.age = 'middle-aged';
  traits.pitchSemitones += 2 * note(has(wordSets.higher)) - 2 * note(has(wordSets.lower));
  const faster = note(has(wordSets.faster));
  const slower = note(has(wordSets.slower));
  traits.pace *= Math.pow(1.12, faster) / Math.pow(1.1, slower);
  traits.scottish = note(has(wordSets.scottish)) > 0;
  traits.understood = [...new Set(traits.understood)];
  return traits;
}

const ageSemitones = { child: 7, young: 2, 'middle-aged': -1, elderly: -2 } as const;
const agePace = { child: 1.05, young: 1.05, 'middle-aged': 1, elderly: 0.88 } as const;


export interface DesignOptions {
  /** How strongly the instruction's traits apply (instruct_guidance_scale / 3, capped at 1.5). */
  traitStrength: number;
  /** How far candidates wander from the target, in semitones (shrinks as guidance_scale grows). */
  spreadSemitones: number;
  /** Caller's `speed` multiplier. */
  speed: number;
}

/**
 * The voice settings of candidate `index`: the instruction's target plus a seeded offset. Candidates are
 * spread on a ladder around the target so that `n` candidates never share their settings.
 */
export function designCandidate(traits: VoiceTraits, random: () => number, index: number, options: DesignOptions): VoiceSettings {
  // Only voices whose pitch can be set, so that candidates really differ.
  const male: FliteVoice[] = traits.scottish ? ['awb'] : ['awb', 'kal16'];
  const pool: FliteVoice[] = traits.gender === 'female' ? ['slt'] : traits.gender === 'male' ? male : traits.scottish ? ['awb'] : ['slt', 'awb', 'kal16'];
  const voice = pool[Math.floor(random() * pool.length)]!;
  const age = traits.age ? ageSemitones[traits.age] : 0;
  const ladder = [0, 1, -1, 2][index % 4]! + Math.floor(index / 4) * 3;
  const offset = options.spreadSemitones * (ladder + (random() - 0.5) * 0.5);
  const semitones = (traits.pitchSemitones + age) * options.traitStrength + offset;
  const pace = Math.pow(traits.pace * (traits.age ? agePace[traits.age] : 1), options.traitStrength);
  const paceJitter = 1 + (random() - 0.5) * 0.08;
  const pitchHz = Math.round(fliteVoices[voice].defaultPitchHz * Math.pow(2, semitones / 12) * 10) / 10;
  const rate = Math.round(Math.min(3, Math.max(0.5, pace * paceJitter * options.speed)) * 1000) / 1000;
  return { voice, pitchHz: Math.min(400, Math.max(50, pitchHz)), rate };
}
