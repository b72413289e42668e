import type { UserRecord, VoiceModelRecord } from '../store/types.js';

export interface Author {
  _id: string;
  nickname: string;
  avatar: string;
}

/** The ModelEntity of the interface: every field present, with the documented defaults where we have nothing. */
export function toModelEntity(model: VoiceModelRecord, author: Author, baseUrl: string) {
  const base = `${baseUrl}/model/${model.id}`;
  return {
    _id: model.id,
    type: model.type,
    title: model.title,
    description: model.description,
    cover_image: model.coverFile ? `${base}/cover` : '',
    train_mode: model.trainMode,
    state: model.state,
    tags: model.tags,
    samples: model.generated.map((sample) => ({
      title: sample.title,
      text: sample.text,
      task_id: sample.task_id,
      audio: `${base}/samples/${sample.task_id}`,
    })),
    created_at: model.createdAt,
    updated_at: model.updatedAt,
    languages: model.languages,
    visibility: model.visibility,
    lock_visibility: model.lockVisibility,
    like_count: model.likeCount,
    mark_count: model.markCount,
    shared_count: model.sharedCount,
    task_count: model.taskCount,
    unliked: false,
    liked: false,
    marked: false,
    author,
    dmca_taken_down: model.dmcaTakenDown,
    default_text: model.defaultText,
    source: model.source,
    quality:
      model.qualityCreatedAt === null
        ? null
        : {
            created_at: model.qualityCreatedAt,
            updated_at: model.qualityCreatedAt,
            audios: model.samples.map((sample) => sample.quality),
          },
  };
}

export type ModelEntity = ReturnType<typeof toModelEntity>;

/** Looks authors up once per response. */
export function authorLookup(getUser: (id: string) => Promise<UserRecord | null>): (id: string) => Promise<Author> {
  const seen = new Map<string, Promise<Author>>();
  return (id) => {
    let author = seen.get(id);
    if (!author) {
      author = getUser(id).then((user) => ({ _id: id, nickname: user?.nickname ?? id, avatar: user?.avatar ?? '' }));
      seen.set(id, author);
    }
    return author;
  };
}
